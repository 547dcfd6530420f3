import type { Channel } from '../../channels/channel.entity';
import type { PostDto } from '../../posts/dto/post.dto';
import { Html, html, when } from './html';
import { PageContext, csrfField, layout, notice } from './layout';
import { LimitProblem, MediaPreview, createdByLine, mediaPreviews, textProblems } from './post-parts';

function when_(p: PostDto): string {
  return p.scheduledAt ? `at ${when(p.scheduledAt)}` : 'now, once approved';
}

/**
 * Posts waiting for an approval: their content and media per channel, approve / reject with a reason
 * (owners and approvers), and the workspace's setting.
 */
export function approvalsPage(
  ctx: PageContext,
  o: {
    posts: PostDto[];
    channels: Channel[];
    media: Map<string, MediaPreview>;
    /** What each post breaks of its channels' limits, by post id. */
    limits?: Map<string, LimitProblem[]>;
    canApprove: boolean;
    approvalRequired: boolean;
    error?: string;
    ok?: string;
    more: boolean;
  },
): Html {
  const names = new Map(o.channels.map((c) => [c.id, `${c.provider} · ${c.handle}`]));
  return layout(
    ctx,
    'Approvals',
    html`<h1>Approvals</h1>
      ${notice('error', o.error)}${notice('ok', o.ok)}
      <section class="card">
        <h2>Workspace setting</h2>
        ${
          o.canApprove
            ? html`<form class="stack" method="post" action="/console/approvals/setting">
                ${csrfField(ctx)}
                <label class="check"
                  ><input
                    type="checkbox"
                    name="approvalRequired"
                    value="true"
                    ${o.approvalRequired ? html`checked` : ''}
                  />
                  <span class="check-text"
                    >Every post needs an approval before it is scheduled or published, whichever API key creates
                    it</span
                  ></label
                >
                <div><button type="submit" class="secondary">Save setting</button></div>
              </form>`
            : html`<p data-testid="approval-setting">
                ${
                  o.approvalRequired
                    ? 'Every post needs an approval before it goes out.'
                    : 'Posts need an approval only when their API key may not publish.'
                }
              </p>`
        }
      </section>
      <h2>Waiting for approval</h2>
      ${o.canApprove ? '' : html`<p class="muted">Only owners and approvers of this workspace can approve or reject posts.</p>`}
      ${
        o.posts.length
          ? o.posts.map(
              (p) =>
                html`<article class="card" data-testid="pending-post" aria-label="Post ${p.id}">
                  <p>
                    <a href="/console/posts/${p.id}" data-testid="post-link">Post</a>
                    <span class="badge warn">pending approval</span> Publishes ${when_(p)} · created
                    ${when(p.createdAt)} · ${createdByLine(p.createdBy)}
                  </p>
                  <ul class="targets">
                    ${p.targets.map(
                      (t) =>
                        html`<li data-testid="pending-target">
                          <strong class="wrap">${names.get(t.channelId) ?? t.channelId}</strong>
                          <blockquote class="wrap">${t.content ?? p.content}</blockquote>
                          ${textProblems(o.limits?.get(p.id) ?? [], t.channelId)}
                          ${mediaPreviews(t.mediaIds ?? p.mediaIds, o.media, o.limits?.get(p.id) ?? [], t.channelId)}
                        </li>`,
                    )}
                  </ul>
                  ${
                    p.thread.length
                      ? html`<p class="muted">Followed by ${p.thread.length} more part(s) of a thread.</p>`
                      : ''
                  }
                  ${
                    o.canApprove
                      ? html`<div class="actions">
                          <form class="inline" method="post" action="/console/approvals/${p.id}/approve">
                            ${csrfField(ctx)}<button type="submit">Approve</button>
                          </form>
                          <form class="stack" method="post" action="/console/approvals/${p.id}/reject">
                            ${csrfField(ctx)}
                            <label
                              >Reason for rejecting
                              <textarea name="reason" maxlength="1000" rows="2" required></textarea>
                            </label>
                            <div><button type="submit" class="danger">Reject</button></div>
                          </form>
                        </div>`
                      : ''
                  }
                </article>`,
            )
          : html`<p class="muted" data-testid="no-pending">No posts are waiting for approval.</p>`
      }
      ${o.more ? html`<p class="muted">Showing the 50 oldest waiting posts.</p>` : ''}`,
  );
}
