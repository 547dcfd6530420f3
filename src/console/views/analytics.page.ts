import type { Channel } from '../../channels/channel.entity';
import type { ChannelAnalyticsDto } from '../../analytics/dto/channel-analytics.dto';
import type { PostAnalyticsDto } from '../../analytics/dto/post-analytics.dto';
import type { PostDto } from '../../posts/dto/post.dto';
import { barChart, lineChart } from './charts';
import { Html, html } from './html';
import { PageContext, layout, notice } from './layout';

const METRICS = ['likes', 'reposts', 'replies', 'quotes', 'impressions'] as const;

const figure = (v: number | null | undefined) => (v === null || v === undefined ? '—' : String(v));

/**
 * Analytics you can see (GET /console/analytics): per channel, its daily figures as a server-drawn SVG
 * line chart with the same figures in a table beside it; per post, the published posts of the range
 * with their totals as a bar chart and a table, each linking to its page (figures over time).
 */
export function analyticsPage(
  ctx: PageContext,
  o: {
    from: string;
    to: string;
    channels: Array<{ channel: Channel; name: string; series: ChannelAnalyticsDto }>;
    posts: Array<{ post: PostDto; analytics: PostAnalyticsDto }>;
    error?: string;
  },
): Html {
  return layout(
    ctx,
    'Analytics',
    html`<h1>Analytics</h1>
      ${notice('error', o.error)}
      <form class="filters" method="get" action="/console/analytics">
        <label>From <input type="date" name="from" value="${o.from}" /></label>
        <label>To <input type="date" name="to" value="${o.to}" /></label>
        <button type="submit" class="secondary">Show</button>
      </form>
      <p class="muted">
        Figures of the posts published on each day (UTC), as the networks report them; a dash where a network does not
        give that figure.
      </p>
      <h2>Per channel</h2>
      ${
        o.channels.length
          ? o.channels.map(({ channel, name, series }) => {
              const tableId = `channel-table-${channel.id}`;
              return html`<section class="card" data-testid="channel-analytics" aria-label="${name}">
                <h3 class="wrap">${name}</h3>
                <div class="chart-with-table">
                  ${lineChart({
                    title: `${name}: figures per day from ${series.from} to ${series.to}`,
                    labels: series.days.map((d) => d.date.slice(5)),
                    series: [
                      { name: 'posts', values: series.days.map((d) => d.posts) },
                      ...METRICS.map((m) => ({ name: m, values: series.days.map((d) => d[m]) })),
                    ],
                    testId: 'channel-chart',
                    describedBy: tableId,
                  })}
                  <div class="table-wrap">
                    <table class="rows" id="${tableId}">
                      <caption class="vh">
                        ${name}: figures per day
                      </caption>
                      <thead>
                        <tr>
                          <th scope="col">Day</th>
                          <th scope="col">posts</th>
                          ${METRICS.map((m) => html`<th scope="col">${m}</th>`)}
                        </tr>
                      </thead>
                      <tbody>
                        ${series.days
                          .filter((d) => d.posts > 0)
                          .map(
                            (d) =>
                              html`<tr>
                                <th scope="row">${d.date}</th>
                                <td data-label="posts">${d.posts}</td>
                                ${METRICS.map((m) => html`<td data-label="${m}">${figure(d[m])}</td>`)}
                              </tr>`,
                          )}
                        <tr>
                          <th scope="row">Total</th>
                          <td data-label="posts">${series.totals.posts}</td>
                          ${METRICS.map((m) => html`<td data-label="${m}">${figure(series.totals[m])}</td>`)}
                        </tr>
                      </tbody>
                    </table>
                  </div>
                </div>
              </section>`;
            })
          : html`<p class="muted">No channels yet.</p>`
      }
      <h2>Per post</h2>
      ${
        o.posts.length
          ? html`<section class="card">
              <div class="chart-with-table">
                ${barChart({
                  title: 'Engagement (likes, reposts, replies, quotes) per post',
                  bars: o.posts.map(({ post, analytics }) => ({
                    label: post.content.slice(0, 24) || post.id.slice(0, 8),
                    value:
                      (analytics.totals.likes ?? 0) +
                      (analytics.totals.reposts ?? 0) +
                      (analytics.totals.replies ?? 0) +
                      (analytics.totals.quotes ?? 0),
                  })),
                  testId: 'posts-chart',
                  describedBy: 'posts-table',
                })}
                <div class="table-wrap">
                  <table class="rows" id="posts-table">
                    <caption class="vh">
                      Figures per post
                    </caption>
                    <thead>
                      <tr>
                        <th scope="col">Post</th>
                        ${METRICS.map((m) => html`<th scope="col">${m}</th>`)}
                      </tr>
                    </thead>
                    <tbody>
                      ${o.posts.map(
                        ({ post, analytics }) =>
                          html`<tr data-testid="post-analytics-row">
                            <th scope="row" class="wrap">
                              <a href="/console/posts/${post.id}">${post.content.slice(0, 40) || '(no text)'}</a>
                            </th>
                            ${METRICS.map((m) => html`<td data-label="${m}">${figure(analytics.totals[m])}</td>`)}
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                </div>
              </div>
            </section>`
          : html`<p class="muted">No posts published in this range.</p>`
      }`,
  );
}
