import type { Channel } from '../../channels/channel.entity';
import type { PostDto, PostTargetDto } from '../../posts/dto/post.dto';
import type { ProviderDto } from '../../providers/dto/provider.dto';
import { timelineHref } from './channels.page';
import { Html, html, when } from './html';
import { PageContext, layout, notice } from './layout';
import { LimitProblem, MediaPreview, createdByLine, mediaPreviews } from './post-parts';

export function badge(status: string): Html {
  const kind = ['published'].includes(status)
    ? 'ok'
    : ['failed'].includes(status)
      ? 'bad'
      : ['publishing', 'scheduled'].includes(status)
        ? 'warn'
        : 'off';
  return html`<span class="badge ${kind}">${status}</span>`;
}

/**
 * A target's network options as one line: `visibility: unlisted · contentWarning: Spoilers`; nested
 * settings by their path (`event.schedule.start: 2027-03-06`), lists joined (`appliedTags: 12, 13`).
 */
export function optionsText(options: Record<string, unknown>): string {
  const entries = (value: unknown, path: string): string[] => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return Object.entries(value).flatMap(([k, v]) => entries(v, path ? `${path}.${k}` : k));
    }
    const text = Array.isArray(value)
      ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);
    return [`${path}: ${text}`];
  };
  return entries(options, '').join(' · ');
}

/** A target's first comment as one line: `first comment: published`, or why it failed. */
function firstCommentLine(t: PostTargetDto): Html | string {
  const c = t.firstComment;
  if (!c) return '';
  const why = c.status === 'failed' && c.error ? `: ${c.error}` : '';
  return html` <span class="muted wrap" data-testid="target-first-comment">first comment: ${c.status}${why}</span>`;
}

/**
 * Where a target's "view" link goes: a sandbox post to its place on the channel's timeline in the
 * console (its API url, `sandbox:posts/<id>`, opens nothing in a browser), any other to the public
 * web address the network gave; nothing for an address that is not http(s).
 */
function viewHref(t: PostTargetDto, channel: Channel | undefined): string | null {
  if (channel?.provider === 'sandbox') return t.platformPostId ? timelineHref(channel.id, t.platformPostId) : null;
  return t.url && /^https?:\/\//i.test(t.url) ? t.url : null;
}

export function viewLink(t: PostTargetDto, channel: Channel | undefined): Html | string {
  const href = viewHref(t, channel);
  if (!href) return '';
  return href.startsWith('/')
    ? html` <a href="${href}" data-testid="view-post">view</a>`
    : html` <a href="${href}" rel="noopener noreferrer" data-testid="view-post">view</a>`;
}

export function postsPage(
  ctx: PageContext,
  o: {
    posts: PostDto[];
    channels: Channel[];
    /** The networks (GET /api/providers), for their display names. */
    networks?: ProviderDto[];
    statuses: readonly string[];
    status?: string;
    channelId?: string;
    error?: string;
    more: boolean;
    /** Previews of the posts' media; none shown without. */
    media?: Map<string, MediaPreview>;
    limits?: Map<string, LimitProblem[]>;
  },
): Html {
  // Channels by the network's display name (YouTube, TikTok), as the channels page shows them.
  const networks = new Map((o.networks ?? []).map((n) => [n.id, n.name]));
  const names = new Map(o.channels.map((c) => [c.id, `${networks.get(c.provider) ?? c.provider} · ${c.handle}`]));
  const channels = new Map(o.channels.map((c) => [c.id, c]));
  return layout(
    ctx,
    'Posts',
    html`<h1>Posts</h1>
      ${notice('error', o.error)}
      <p><a class="button" href="/console/posts/new" data-testid="new-post">New post</a></p>
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
        <table class="rows">
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
                        <td data-label="Created">${when(p.createdAt)}</td>
                        <td class="wrap" data-label="Content">
                          <a href="/console/posts/${p.id}" data-testid="post-link"
                            >${p.content.length > 140 ? `${p.content.slice(0, 140)}…` : p.content || '(no text)'}</a
                          >
                          ${o.media ? mediaPreviews(p.mediaIds, o.media, o.limits?.get(p.id) ?? []) : ''}
                          <div class="muted">${createdByLine(p.createdBy)}</div>
                        </td>
                        <td data-label="Status">${badge(p.status)}</td>
                        <td data-label="Scheduled">
                          ${when(p.scheduledAt)}${p.queued ? html` <span class="badge ok" data-testid="queued-badge">queued</span>` : ''}
                        </td>
                        <td data-label="Per channel">
                          <ul class="targets">
                            ${p.targets.map(
                              (t) =>
                                html`<li data-testid="post-target">
                                  <span class="wrap">${names.get(t.channelId) ?? t.channelId}:</span>
                                  ${badge(t.status)}${viewLink(t, channels.get(t.channelId))}${t.error ? html` <span class="muted wrap">${t.error.message}</span>` : ''}${
                                    t.options
                                      ? html` <span class="muted wrap" data-testid="target-options"
                                          >${optionsText(t.options)}</span
                                        >`
                                      : ''
                                  }${firstCommentLine(t)}
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
