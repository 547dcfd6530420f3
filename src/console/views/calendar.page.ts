import type { Channel } from '../../channels/channel.entity';
import type { PostDto } from '../../posts/dto/post.dto';
import { Html, html, when } from './html';
import { PageContext, csrfField, layout, notice } from './layout';
import { badge } from './posts.page';

/** A posting slot of one channel on the calendar. */
export interface CalendarSlot {
  at: Date;
  channelId: string;
}

/** One day of the calendar: its posts and its channels' slots. */
export interface CalendarDay {
  date: string;
  inRange: boolean;
  posts: PostDto[];
  slots: CalendarSlot[];
}

export interface CalendarFilters {
  view: 'week' | 'month';
  date: string;
  channelId?: string;
  status?: string;
}

const WEEKDAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

function hhmm(at: Date | string): string {
  return new Date(at).toISOString().slice(11, 16);
}

/** Where a post sits on the calendar: when it is scheduled, else when it was published, else created. */
export function calendarTime(p: PostDto): string {
  return p.scheduledAt ?? p.publishedAt ?? p.createdAt;
}

function query(f: CalendarFilters, changes: Partial<CalendarFilters>): string {
  const all = { ...f, ...changes };
  const q = new URLSearchParams({ view: all.view, date: all.date });
  if (all.channelId) q.set('channelId', all.channelId);
  if (all.status) q.set('status', all.status);
  return `/console/calendar?${q.toString()}`;
}

/** A scheduled post's move form: one of the shown slots of its channels, or a time of one's own (UTC). */
function moveForm(ctx: PageContext, p: PostDto, slots: CalendarSlot[], back: string): Html {
  const own = slots.filter((s) => p.channelIds.includes(s.channelId) && s.at.toISOString() !== p.scheduledAt);
  const unique = [...new Map(own.map((s) => [s.at.toISOString(), s])).values()].sort(
    (a, b) => a.at.getTime() - b.at.getTime(),
  );
  return html`<details class="move">
    <summary>Move</summary>
    <form class="stack" method="post" action="/console/calendar/${p.id}/move" data-move-form="${p.id}">
      ${csrfField(ctx)}
      <input type="hidden" name="back" value="${back}" />
      <label
        >To a slot
        <select name="at" data-testid="move-slot">
          <option value="">(choose)</option>
          ${unique.map((s) => html`<option value="${s.at.toISOString()}">${when(s.at)}</option>`)}
        </select></label
      >
      <label>Or at (UTC) <input type="datetime-local" name="custom" /></label>
      <div><button type="submit" class="secondary">Move post</button></div>
    </form>
  </details>`;
}

/**
 * The calendar (GET /console/calendar): a month or a week across channels, in UTC, with each
 * channel's posting slots and the scheduled and published posts, filtered by channel and status.
 * A scheduled post moves through its form (no script), or by dragging it onto a slot or a day.
 */
export function calendarPage(
  ctx: PageContext,
  o: {
    filters: CalendarFilters;
    days: CalendarDay[];
    channels: Channel[];
    networks: Map<string, string>;
    statuses: readonly string[];
    previous: string;
    next: string;
    title: string;
    ok?: string;
    error?: string;
    more: boolean;
  },
): Html {
  const f = o.filters;
  const names = new Map(o.channels.map((c) => [c.id, `${o.networks.get(c.provider) ?? c.provider} · ${c.handle}`]));
  const back = query(f, {});
  return layout(
    ctx,
    'Calendar',
    html`<h1>Calendar <span class="muted">${o.title}</span></h1>
      ${notice('ok', o.ok)}${notice('error', o.error)}
      <form class="filters" method="get" action="/console/calendar">
        <label
          >View
          <select name="view">
            <option value="month" ${f.view === 'month' ? html`selected` : ''}>month</option>
            <option value="week" ${f.view === 'week' ? html`selected` : ''}>week</option>
          </select></label
        >
        <label>Date <input type="date" name="date" value="${f.date}" /></label>
        <label
          >Channel
          <select name="channelId">
            <option value="">any</option>
            ${o.channels.map((c) => html`<option value="${c.id}" ${c.id === f.channelId ? html`selected` : ''}>${names.get(c.id)}</option>`)}
          </select></label
        >
        <label
          >Status
          <select name="status">
            <option value="">any</option>
            ${o.statuses.map((s) => html`<option value="${s}" ${s === f.status ? html`selected` : ''}>${s}</option>`)}
          </select></label
        >
        <button type="submit" class="secondary">Show</button>
      </form>
      <p class="actions">
        <a class="button secondary" href="${query(f, { date: o.previous })}">← Earlier</a>
        <a class="button secondary" href="${query(f, { date: o.next })}">Later →</a>
        <a class="button secondary" href="/console/posts/new">New post</a>
      </p>
      <p class="muted">Times in UTC. Drag a scheduled post onto a slot or a day to move it, or use its Move form.</p>
      <ol class="calendar ${f.view}" data-testid="calendar">
        ${o.days.map(
          (d, i) =>
            html`<li
              class="card day${d.inRange ? '' : ' other'}"
              data-date="${d.date}"
              data-drop-day="${d.date}"
              data-testid="calendar-day"
            >
              <h2>
                <span class="weekday">${WEEKDAY_NAMES[i % 7]}</span> ${d.date.slice(8)}<span class="vh">
                  ${d.date}</span
                >
              </h2>
              <ul class="entries">
                ${d.slots.map(
                  (s) =>
                    html`<li class="slot" data-drop-at="${s.at.toISOString()}" data-testid="calendar-slot">
                      <span class="time">${hhmm(s.at)}</span>
                      <span class="muted wrap">slot · ${names.get(s.channelId) ?? ''}</span>
                    </li>`,
                )}
                ${d.posts.map(
                  (p) =>
                    html`<li
                      class="entry"
                      data-testid="calendar-post"
                      data-post-id="${p.id}"
                      ${p.status === 'scheduled' ? html`draggable="true"` : ''}
                    >
                      <span class="time">${hhmm(calendarTime(p))}</span> ${badge(p.status)}
                      <a class="wrap" href="/console/posts/${p.id}">${p.content.slice(0, 60) || '(no text)'}</a>
                      <span class="muted wrap">${p.channelIds.map((c) => names.get(c) ?? c).join(', ')}</span>
                      ${
                        p.status === 'scheduled'
                          ? moveForm(
                              ctx,
                              p,
                              o.days.flatMap((x) => x.slots),
                              back,
                            )
                          : ''
                      }
                    </li>`,
                )}
              </ul>
            </li>`,
        )}
      </ol>
      ${o.more ? html`<p class="muted">Showing the first 100 posts of this range.</p>` : ''}`,
  );
}
