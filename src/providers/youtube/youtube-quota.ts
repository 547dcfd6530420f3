import { TransientProviderError } from '../provider.errors';

/** Google resets YouTube Data API quotas at midnight Pacific Time. */
const QUOTA_ZONE = 'America/Los_Angeles';

const zoneParts = new Intl.DateTimeFormat('en-US', {
  timeZone: QUOTA_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Milliseconds the Pacific wall clock is ahead of UTC at `t` (negative). */
function zoneOffsetMs(t: number): number {
  const p = Object.fromEntries(zoneParts.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
  const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return wall - Math.floor(t / 1000) * 1000;
}

/** The next midnight Pacific Time after `now`, when YouTube quotas reset (daylight saving included). */
export function nextQuotaReset(now: number = Date.now()): Date {
  const wall = new Date(now + zoneOffsetMs(now));
  const nextDay = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate() + 1);
  // The offset at the reset may differ from now's (the day daylight saving changes): settle it.
  let reset = nextDay - zoneOffsetMs(nextDay);
  reset = nextDay - zoneOffsetMs(reset);
  return new Date(reset);
}

/** The Pacific day of `now` (YYYY-MM-DD), the quota's accounting day. */
export function quotaDay(now: number = Date.now()): string {
  return new Date(now + zoneOffsetMs(now)).toISOString().slice(0, 10);
}

/**
 * YouTube's daily quota is spent or cannot cover the next upload: typed (rate-limited, transient)
 * with the wait until the reset, so the publisher retries then instead of calling again at once.
 */
export class YouTubeQuotaExhaustedError extends TransientProviderError {
  constructor(
    detail: string,
    readonly resetsAt: Date,
    now: number = Date.now(),
  ) {
    super(
      `YouTube daily API quota exhausted (${detail}); it resets at midnight Pacific Time, ${resetsAt.toISOString()}, when the upload is retried`,
      403,
      Math.max(1, Math.ceil((resetsAt.getTime() - now) / 1000)),
      true,
    );
  }
}

/** Documented costs of the calls we make (units of the project's daily quota). */
export const YOUTUBE_COSTS = { list: 1, thumbnail: 50, comment: 50 } as const;

/**
 * What this process knows of the project's daily quota (the OAuth app's Google Cloud project):
 * uploads made (videos.insert has its own daily bucket) and units spent on other calls, per Pacific
 * day, and whether Google said the quota is exhausted. Uploads are refused before the call when the
 * day's quota cannot cover them. Per process: workers each learn an exhaustion from their own first
 * refusal (docs/adr/0039).
 */
export class YouTubeQuotaLedger {
  private day = '';
  private uploads = 0;
  private units = 0;
  private exhaustedUntil = 0;
  private exhaustedDetail = '';

  constructor(
    private readonly dailyUploads: number,
    private readonly dailyUnits: number,
  ) {}

  /** Throws YouTubeQuotaExhaustedError when an upload (and its thumbnail) cannot be covered today. */
  checkUpload(withThumbnail: boolean, now: number = Date.now()): void {
    this.roll(now);
    if (now < this.exhaustedUntil)
      throw new YouTubeQuotaExhaustedError(this.exhaustedDetail, new Date(this.exhaustedUntil), now);
    if (this.uploads >= this.dailyUploads) {
      throw new YouTubeQuotaExhaustedError(
        `${this.uploads} of ${this.dailyUploads} uploads used today`,
        nextQuotaReset(now),
        now,
      );
    }
    const needed = YOUTUBE_COSTS.list * 2 + (withThumbnail ? YOUTUBE_COSTS.thumbnail : 0);
    if (this.units + needed > this.dailyUnits) {
      throw new YouTubeQuotaExhaustedError(
        `${this.units} of ${this.dailyUnits} units used today, ${needed} needed`,
        nextQuotaReset(now),
        now,
      );
    }
  }

  /** Throws YouTubeQuotaExhaustedError when `needed` units (a call other than an upload) cannot be covered today. */
  checkUnits(needed: number, now: number = Date.now()): void {
    this.roll(now);
    if (now < this.exhaustedUntil)
      throw new YouTubeQuotaExhaustedError(this.exhaustedDetail, new Date(this.exhaustedUntil), now);
    if (this.units + needed > this.dailyUnits) {
      throw new YouTubeQuotaExhaustedError(
        `${this.units} of ${this.dailyUnits} units used today, ${needed} needed`,
        nextQuotaReset(now),
        now,
      );
    }
  }

  upload(now: number = Date.now()): void {
    this.roll(now);
    this.uploads += 1;
  }

  spend(units: number, now: number = Date.now()): void {
    this.roll(now);
    this.units += units;
  }

  /** Google refused a call for quota: nothing more until the reset. */
  exhausted(detail: string, now: number = Date.now()): YouTubeQuotaExhaustedError {
    const reset = nextQuotaReset(now);
    this.exhaustedUntil = reset.getTime();
    this.exhaustedDetail = detail;
    return new YouTubeQuotaExhaustedError(detail, reset, now);
  }

  private roll(now: number): void {
    const day = quotaDay(now);
    if (day === this.day) return;
    this.day = day;
    this.uploads = 0;
    this.units = 0;
    if (now >= this.exhaustedUntil) this.exhaustedUntil = 0;
  }
}
