import type { Channel } from '../../channels/channel.entity';
import type { PostDto, PostTargetDto } from '../../posts/dto/post.dto';
import type { PostCheckpoint } from '../../posts/post-target-checkpoints.store';
import { lineChart } from './charts';
import { Html, html, when } from './html';
import { PageContext, layout, notice } from './layout';
import {
  LimitProblem,
  MediaPreview,
  createdByLine,
  mediaLimitProblems,
  mediaPreviews,
  textProblems,
} from './post-parts';
import { badge, optionsText, viewLink } from './posts.page';

/** A collection's figures (analytics' five, null where a network gives none). */
type Figures = Record<'likes' | 'reposts' | 'replies' | 'quotes' | 'impressions', number | null>;

/** An event about the post, as the page lists it. */
export interface PostEventView {
  id: string;
  type: string;
  createdAt: Date;
}

/** One delivery attempt of one of the post's events to one webhook endpoint. */
export interface DeliveryAttemptView {
  eventId: string;
  eventType: string;
  webhookId: string;
  attempt: number;
  statusCode: number | null;
  succeeded: boolean;
  error: string | null;
  durationMs: number;
  createdAt: Date;
}

/** One collection of a target's figures. */
export interface AnalyticsPointView {
  channelId: string;
  collectedAt: Date;
  figures: Figures;
}

const METRICS: Array<keyof Figures> = ['likes', 'reposts', 'replies', 'quotes', 'impressions'];

function targetSection(
  t: PostTargetDto,
  _post: PostDto,
  o: {
    name: string;
    channel: Channel | undefined;
    media: Map<string, MediaPreview>;
    problems: LimitProblem[];
    checkpoints: PostCheckpoint[];
  },
): Html {
  const c = t.firstComment;
  return html`<section class="card" data-testid="post-target-section" aria-label="${o.name}">
    <h3 class="wrap">${o.name} ${badge(t.status)}</h3>
    <dl class="facts">
      <dt>Attempts</dt>
      <dd data-testid="target-attempts">${t.attempts}</dd>
      <dt>Published</dt>
      <dd>${when(t.publishedAt)}${viewLink(t, o.channel)}</dd>
      ${
        t.platformPostId
          ? html`<dt>Network id</dt>
              <dd class="mono">${t.platformPostId}</dd>`
          : ''
      }
      ${
        t.error
          ? html`<dt>Error</dt>
              <dd data-testid="target-error"><code>${t.error.code}</code> ${t.error.message}</dd>`
          : ''
      }
      ${
        t.options
          ? html`<dt>Options</dt>
              <dd data-testid="target-options">${optionsText(t.options)}</dd>`
          : ''
      }
      ${
        c
          ? html`<dt>First comment</dt>
              <dd data-testid="target-first-comment">
                ${badge(c.status)} ${c.content}
                ${c.url && /^https?:\/\//i.test(c.url) ? html` <a href="${c.url}" rel="noopener noreferrer">view</a>` : ''}
                ${c.error ? html` <span class="muted">${c.error}</span>` : ''}
              </dd>`
          : ''
      }
    </dl>
    ${
      t.content !== undefined
        ? html`<h4>Own text on this channel</h4>
            <blockquote class="wrap" data-testid="target-content">${t.content}</blockquote>`
        : ''
    }
    ${textProblems(o.problems, t.channelId)}
    ${
      t.mediaIds
        ? html`<h4>Own media on this channel</h4>
            ${mediaPreviews(t.mediaIds, o.media, o.problems, t.channelId)}`
        : mediaLimitProblems(o.problems, t.channelId)
    }
    ${
      t.parts.length
        ? html`<h4>Thread parts published</h4>
            <ol>
              ${t.parts.map(
                (p) =>
                  html`<li>
                    part ${p.index}: ${when(p.publishedAt)}
                    ${/^https?:\/\//i.test(p.url) ? html`<a href="${p.url}" rel="noopener noreferrer">view</a>` : ''}
                  </li>`,
              )}
            </ol>`
        : ''
    }
    ${
      o.checkpoints.length
        ? html`<h4>Checkpoints</h4>
            <ul class="mono" data-testid="target-checkpoints">
              ${o.checkpoints.map(
                (k) =>
                  html`<li class="wrap">
                    publication ${k.publication}, part ${k.index}: ${JSON.stringify(k.state)} (${when(k.updatedAt)})
                  </li>`,
              )}
            </ul>`
        : ''
    }
  </section>`;
}

/**
 * A post's whole story (GET /console/posts/{id}): its content and media with the limits they break,
 * who asked, each channel's overrides, options and outcome (attempts, checkpoints, error codes, the
 * network's link, first comment), its events and their webhook deliveries, and its figures over time.
 */
export function postPage(
  ctx: PageContext,
  o: {
    post: PostDto;
    channels: Channel[];
    networks: Map<string, string>;
    media: Map<string, MediaPreview>;
    problems: LimitProblem[];
    checkpoints: PostCheckpoint[];
    events: PostEventView[];
    deliveries: DeliveryAttemptView[];
    analytics: AnalyticsPointView[];
    ok?: string;
  },
): Html {
  const p = o.post;
  const channels = new Map(o.channels.map((c) => [c.id, c]));
  const nameOf = (id: string) => {
    const c = channels.get(id);
    return c ? `${o.networks.get(c.provider) ?? c.provider} · ${c.handle}` : id;
  };
  const times = [...new Set(o.analytics.map((a) => a.collectedAt.toISOString()))].sort();
  // The post's totals after each collection: each channel's latest figures at that time, summed.
  const totals = times.map((at) => {
    const latest = new Map<string, Figures>();
    for (const a of o.analytics) if (a.collectedAt.toISOString() <= at) latest.set(a.channelId, a.figures);
    return METRICS.map((m) => [...latest.values()].reduce((n, f) => n + (f[m] ?? 0), 0));
  });
  return layout(
    ctx,
    'Post',
    html`<p><a href="/console/posts">← Posts</a></p>
      <h1>Post ${badge(p.status)}</h1>
      ${notice('ok', o.ok)}
      <section class="card">
        <dl class="facts" data-testid="post-facts">
          <dt>Who asked</dt>
          <dd>${createdByLine(p.createdBy)}</dd>
          <dt>Created</dt>
          <dd>${when(p.createdAt)}</dd>
          <dt>Scheduled</dt>
          <dd>${when(p.scheduledAt)}${p.queued ? html` <span class="badge ok">queued</span>` : ''}</dd>
          <dt>Published</dt>
          <dd>${when(p.publishedAt)}</dd>
          ${
            p.externalId
              ? html`<dt>External id</dt>
                  <dd class="mono">${p.externalId}</dd>`
              : ''
          }
          ${
            Object.keys(p.metadata).length
              ? html`<dt>Metadata</dt>
                  <dd>
                    ${Object.entries(p.metadata)
                      .map(([k, v]) => `${k}: ${v}`)
                      .join(' · ')}
                  </dd>`
              : ''
          }
          ${
            p.approval
              ? html`<dt>Approved</dt>
                  <dd>${when(p.approval.at)} by ${p.approval.by.type} ${p.approval.by.id}</dd>`
              : ''
          }
          ${
            p.rejection
              ? html`<dt>Rejected</dt>
                  <dd>${when(p.rejection.at)}: ${p.rejection.reason}</dd>`
              : ''
          }
          <dt>Id</dt>
          <dd class="mono">${p.id}</dd>
        </dl>
        ${p.status === 'draft' ? html`<p><a class="button secondary" href="/console/posts/${p.id}/edit">Edit draft</a></p>` : ''}
      </section>
      <h2>Content</h2>
      <section class="card">
        <blockquote class="wrap" data-testid="post-content">${p.content}</blockquote>
        ${textProblems(o.problems.filter((x) => x.field === 'content'))}
        ${mediaPreviews(
          p.mediaIds,
          o.media,
          o.problems.filter((x) => !x.field.startsWith('targets')),
        )}
        ${p.thread.map(
          (part, i) =>
            html`<h3>Thread part ${i + 2}</h3>
              <blockquote class="wrap">${part.content}</blockquote>
              ${mediaPreviews(part.mediaIds, o.media)}`,
        )}
        ${p.firstComment ? html`<p><span class="muted">First comment:</span> ${p.firstComment}</p>` : ''}
      </section>
      <h2>Channels</h2>
      ${p.targets.map((t) =>
        targetSection(t, p, {
          name: nameOf(t.channelId),
          channel: channels.get(t.channelId),
          media: o.media,
          problems: o.problems,
          checkpoints: o.checkpoints.filter((k) => k.channelId === t.channelId),
        }),
      )}
      <h2>Analytics over time</h2>
      ${
        times.length
          ? html`<div class="chart-with-table">
              ${lineChart({
                title: 'The post’s figures after each collection',
                labels: times.map((t) => t.slice(5, 16).replace('T', ' ')),
                series: METRICS.map((m, i) => ({ name: m, values: totals.map((row) => row[i]) })),
                testId: 'post-analytics-chart',
                describedBy: 'post-analytics-table',
              })}
              <div class="table-wrap">
                <table class="rows" id="post-analytics-table">
                  <caption class="vh">
                    The post’s figures after each collection
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Collected</th>
                      ${METRICS.map((m) => html`<th scope="col">${m}</th>`)}
                    </tr>
                  </thead>
                  <tbody>
                    ${times.map(
                      (t, i) =>
                        html`<tr>
                          <th scope="row">${when(t)}</th>
                          ${totals[i].map((v, j) => html`<td data-label="${METRICS[j]}">${v}</td>`)}
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
            </div>`
          : html`<p class="muted" data-testid="no-analytics">No figures collected yet.</p>`
      }
      <h2>Events</h2>
      ${
        o.events.length
          ? html`<div class="table-wrap">
              <table class="rows" data-testid="post-events">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Event</th>
                    <th scope="col">Webhook deliveries</th>
                  </tr>
                </thead>
                <tbody>
                  ${o.events.map((e) => {
                    const attempts = o.deliveries.filter((d) => d.eventId === e.id);
                    return html`<tr data-testid="post-event">
                      <td data-label="When">${when(e.createdAt)}</td>
                      <td data-label="Event"><code>${e.type}</code></td>
                      <td data-label="Deliveries">
                        ${
                          attempts.length
                            ? html`<ul class="targets">
                                ${attempts.map(
                                  (d) =>
                                    html`<li data-testid="webhook-delivery">
                                      ${d.succeeded ? html`<span class="badge ok">delivered</span>` : html`<span class="badge bad">failed</span>`}
                                      attempt ${d.attempt} · ${d.statusCode ?? 'no answer'} · ${d.durationMs} ms
                                      <a href="/console/webhooks/${d.webhookId}">endpoint</a>
                                      ${d.error ? html` <span class="muted wrap">${d.error}</span>` : ''}
                                    </li>`,
                                )}
                              </ul>`
                            : html`<span class="muted">none</span>`
                        }
                      </td>
                    </tr>`;
                  })}
                </tbody>
              </table>
            </div>`
          : html`<p class="muted">No events recorded for this post.</p>`
      }`,
  );
}
