import type { Channel } from '../../channels/channel.entity';
import type { PostDto } from '../../posts/dto/post.dto';
import { Html, html, when } from './html';
import { PageContext, layout, notice } from './layout';

function badge(status: string): Html {
  const kind = ['published'].includes(status)
    ? 'ok'
    : ['failed'].includes(status)
      ? 'bad'
      : ['publishing', 'scheduled'].includes(status)
        ? 'warn'
        : 'off';
  return html`<span class="badge ${kind}">${status}</span>`;
}

export function postsPage(
  ctx: PageContext,
  o: {
    posts: PostDto[];
    channels: Channel[];
    statuses: readonly string[];
    status?: string;
    channelId?: string;
    error?: string;
    more: boolean;
  },
): Html {
  const names = new Map(o.channels.map((c) => [c.id, `${c.provider} · ${c.handle}`]));
  return layout(
    ctx,
    'Posts',
    html`<h1>Posts</h1>
      ${notice('error', o.error)}
      <form class="filters" method="get" action="/console/posts">
        <label
          >Status
          <select name="status">
            <option value="">any</option>
            ${o.statuses.map((s) => html`<option value="${s}" ${s === o.status ? html`selected` : ''}>${s}</option>`)}
          </select></label
        >
        <label
          >Channel
          <select name="channelId">
            <option value="">any</option>
            ${o.channels.map((c) => html`<option value="${c.id}" ${c.id === o.channelId ? html`selected` : ''}>${names.get(c.id)}</option>`)}
          </select></label
        >
        <button type="submit" class="secondary">Filter</button>
      </form>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Content</th>
              <th scope="col">Status</th>
              <th scope="col">Scheduled</th>
              <th scope="col">Per channel</th>
            </tr>
          </thead>
          <tbody>
            ${
              o.posts.length
                ? o.posts.map(
                    (p) =>
                      html`<tr data-testid="post-row">
                        <td>${when(p.createdAt)}</td>
                        <td class="wrap">${p.content.length > 140 ? `${p.content.slice(0, 140)}…` : p.content}</td>
                        <td>${badge(p.status)}</td>
                        <td>${when(p.scheduledAt)}</td>
                        <td>
                          <ul>
                            ${p.targets.map(
                              (t) =>
                                html`<li>
                                  ${names.get(t.channelId) ?? t.channelId}:
                                  ${badge(t.status)}${t.url ? html` <a href="${t.url}" rel="noopener noreferrer">view</a>` : ''}${t.error ? html` <span class="muted">${t.error.message}</span>` : ''}
                                </li>`,
                            )}
                          </ul>
                        </td>
                      </tr>`,
                  )
                : html`<tr>
                    <td colspan="5" class="muted">No posts match.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
      ${o.more ? html`<p class="muted">Showing the 50 newest matching posts.</p>` : ''}`,
  );
}
