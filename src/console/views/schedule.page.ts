import type { Channel } from '../../channels/channel.entity';
import type { PostingScheduleDto } from '../../posting-schedules/dto/posting-schedule.dto';
import type { ScheduleWeek } from '../../posting-schedules/posting-schedules.service';
import type { PostDto } from '../../posts/dto/post.dto';
import { Html, html } from './html';
import { PageContext, csrfField, layout, notice } from './layout';

const DAY_NAMES: Record<string, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};
const DAYS = Object.keys(DAY_NAMES);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-11-30` as `30 Nov`. */
const shortDate = (date: string) => `${Number(date.slice(8, 10))} ${MONTHS[Number(date.slice(5, 7)) - 1]}`;

/** The console page of a channel's posting schedule. */
export const scheduleHref = (channelId: string, week?: string) =>
  `/console/channels/${channelId}/schedule${week ? `?week=${week}` : ''}`;

/** One line of a day in the week view: a post at its local time, or a free slot. */
export interface WeekEntry {
  at: Date;
  /** Local `HH:MM` in the schedule's zone. */
  time: string;
  post: PostDto | null;
  /** Whether the instant is a slot of the schedule. */
  slot: boolean;
}

export interface WeekDayView {
  date: string;
  weekday: string;
  entries: WeekEntry[];
}

function entryLine(e: WeekEntry): Html {
  if (!e.post) {
    return html`<li class="entry free" data-testid="week-entry" data-kind="free" data-at="${e.at.toISOString()}">
      <span class="time">${e.time}</span> <span class="muted">free slot</span>
    </li>`;
  }
  const p = e.post;
  const text = p.content.length > 80 ? `${p.content.slice(0, 80)}…` : p.content;
  return html`<li class="entry" data-testid="week-entry" data-kind="post" data-at="${e.at.toISOString()}">
    <span class="time">${e.time}</span>
    ${p.queued ? html`<span class="badge ok" data-testid="queued-badge">queued</span>` : ''}
    ${p.status !== 'scheduled' ? html`<span class="badge off">${p.status}</span>` : ''}
    <span class="wrap">${text}</span>
  </li>`;
}

function slotsFieldset(schedule: PostingScheduleDto): Html {
  if (schedule.slots.length === 0) {
    return html`<fieldset>
      <legend>Slots</legend>
      <p class="muted" data-testid="no-slots">No slots yet: add times below.</p>
    </fieldset>`;
  }
  return html`<fieldset>
    <legend>Slots</legend>
    ${DAYS.filter((d) => schedule.slots.some((s) => s.day === d)).map(
      (d) =>
        html`<div class="slot-day" data-testid="slot-day">
          <span class="day-name">${DAY_NAMES[d]}</span>
          ${schedule.slots
            .filter((s) => s.day === d)
            .map(
              (s) =>
                html`<label class="slot"
                  ><input type="checkbox" name="keep" value="${s.day} ${s.time}" checked />
                  <span class="vh">${DAY_NAMES[d]} </span>${s.time}</label
                >`,
            )}
        </div>`,
    )}
    <p class="muted">Untick a time and save to remove it.</p>
  </fieldset>`;
}

/**
 * A channel's posting schedule: its time zone and weekly slots (a form: keep or untick the slots,
 * add one time on several days), and the week's slots and posts in the schedule's zone.
 */
export function schedulePage(
  ctx: PageContext,
  o: {
    channel: Channel;
    schedule: PostingScheduleDto;
    week: ScheduleWeek;
    days: WeekDayView[];
    zones: string[];
    error?: string;
    ok?: string;
  },
): Html {
  const { channel, schedule, week } = o;
  const zone = schedule.timezone ?? '';
  return layout(
    ctx,
    `Posting schedule of ${channel.name}`,
    html`<p><a href="/console/channels">← Channels</a> · <a href="/console/posts?channelId=${channel.id}">Posts</a></p>
      <h1>Posting schedule of <span class="wrap">${channel.name}</span></h1>
      ${notice('error', o.error)}${notice('ok', o.ok)}
      <p class="muted">
        Posts created with <code>"queue": true</code> go to the earliest slot that is free on all of their channels.
        Slots are local times of the time zone and follow its daylight-saving changes.
      </p>
      <section class="card">
        <h2>Schedule</h2>
        <form class="stack" method="post" action="${scheduleHref(channel.id)}">
          ${csrfField(ctx)}
          <label
            >Time zone <span class="hint">An IANA name, such as Europe/Berlin or America/New_York.</span>
            <input name="timezone" list="time-zones" value="${zone}" required autocomplete="off" maxlength="64"
          /></label>
          <datalist id="time-zones">${o.zones.map((z) => html`<option value="${z}"></option>`)}</datalist>
          ${slotsFieldset(schedule)}
          <fieldset>
            <legend>Add a time</legend>
            <div class="days">
              ${DAYS.map(
                (d) => html`<label><input type="checkbox" name="addDays" value="${d}" /> ${DAY_NAMES[d]}</label>`,
              )}
            </div>
            <label class="add-time">Time <input type="time" name="addTime" step="60" /></label>
          </fieldset>
          <div><button type="submit">Save schedule</button></div>
        </form>
      </section>
      <h2 id="week">Week of ${o.days[0].date} <span class="muted">(${week.timezone})</span></h2>
      <div class="actions">
        <a class="button secondary" href="${scheduleHref(channel.id, week.previous)}#week">← Previous week</a>
        <a class="button secondary" href="${scheduleHref(channel.id)}#week">This week</a>
        <a class="button secondary" href="${scheduleHref(channel.id, week.next)}#week">Next week →</a>
      </div>
      <ol class="week" aria-label="Week of ${o.days[0].date}">
        ${o.days.map(
          (d) =>
            html`<li class="card week-day" data-testid="week-day" data-date="${d.date}">
              <h3>${DAY_NAMES[d.weekday]} <span class="muted">${shortDate(d.date)}</span></h3>
              ${
                d.entries.length
                  ? html`<ul class="entries">
                      ${d.entries.map(entryLine)}
                    </ul>`
                  : html`<p class="muted">No slots or posts.</p>`
              }
            </li>`,
        )}
      </ol>`,
  );
}
