import { OutboundHttp } from '../../common/http/outbound-http';
import type { MediaDescriptor } from '../social-provider.interface';
import { nextOffset } from './youtube-api.client';
import { YouTubeQuotaExhaustedError, YouTubeQuotaLedger, nextQuotaReset } from './youtube-quota';
import { YOUTUBE_LIMITS } from './youtube.limits';
import { defaultTitle, readYouTubeOptions, tagsLength } from './youtube.options';
import { YouTubeProvider } from './youtube.provider';

const media = (id: string, mimeType: string, width = 1080, height = 1920, extra: object = {}): MediaDescriptor => ({
  id,
  mimeType,
  size: 1000,
  width,
  height,
  filename: id,
  ...extra,
});

describe('YouTube quota reset', () => {
  it('is the next midnight Pacific Time, in winter and in summer', () => {
    expect(nextQuotaReset(Date.parse('2026-01-15T12:00:00Z')).toISOString()).toBe('2026-01-16T08:00:00.000Z');
    expect(nextQuotaReset(Date.parse('2026-07-15T12:00:00Z')).toISOString()).toBe('2026-07-16T07:00:00.000Z');
    // 23:30 PT is 07:30 UTC the next day in winter: the reset is half an hour away.
    expect(nextQuotaReset(Date.parse('2026-01-16T07:30:00Z')).toISOString()).toBe('2026-01-16T08:00:00.000Z');
    // The day daylight saving starts (8 March 2026): midnight after it is at UTC-7.
    expect(nextQuotaReset(Date.parse('2026-03-08T12:00:00Z')).toISOString()).toBe('2026-03-09T07:00:00.000Z');
  });

  it('refuses uploads before calling once the day is spent, until the reset', () => {
    const ledger = new YouTubeQuotaLedger(2, 10_000);
    const now = Date.parse('2026-01-15T12:00:00Z');
    ledger.upload(now);
    ledger.upload(now);
    expect(() => ledger.checkUpload(false, now)).toThrow(YouTubeQuotaExhaustedError);
    try {
      ledger.checkUpload(false, now);
    } catch (err) {
      expect((err as YouTubeQuotaExhaustedError).retryAfterSeconds).toBe(20 * 3600);
    }
    expect(() => ledger.checkUpload(false, Date.parse('2026-01-16T08:00:01Z'))).not.toThrow();
    ledger.exhausted('quotaExceeded', now);
    expect(() => ledger.checkUpload(false, now + 1000)).toThrow(/resets at midnight Pacific Time/);
  });
});

describe('YouTube options', () => {
  const now = Date.parse('2026-11-27T00:00:00Z');

  it('requires madeForKids and reads the rest with defaults', () => {
    expect(readYouTubeOptions({}, now).problems).toEqual([
      {
        field: 'options.madeForKids',
        message: expect.stringContaining('is required: YouTube has every uploader declare'),
      },
    ]);
    expect(readYouTubeOptions({ madeForKids: false }, now).options).toEqual({
      title: null,
      privacy: 'public',
      madeForKids: false,
      notifySubscribers: true,
      publishAt: null,
      tags: [],
      categoryId: null,
      short: false,
    });
  });

  it('refuses unknown fields, a past publishAt, scheduling unlisted, and tags beyond 500 characters', () => {
    const problems = readYouTubeOptions(
      {
        madeForKids: true,
        colour: 'red',
        privacy: 'unlisted',
        publishAt: '2026-12-01T00:00:00Z',
        tags: Array(60).fill('ten chars'),
      },
      now,
    ).problems.map((p) => p.field);
    expect(problems).toEqual(['options.colour', 'options.publishAt', 'options.tags']);
    expect(readYouTubeOptions({ madeForKids: true, publishAt: '2026-01-01T00:00:00Z' }, now).problems[0].message).toBe(
      'must be in the future',
    );
    expect(tagsLength(['a b', 'c'])).toBe(7);
  });

  it('titles a video by the first line of its text', () => {
    expect(defaultTitle('\nLaunch <day>\nmore')).toBe('Launch day');
    expect(defaultTitle('x'.repeat(150))).toHaveLength(100);
    expect(defaultTitle('')).toBe('Video');
  });
});

describe('YouTubeProvider.validate', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new YouTubeProvider(http, {
    chunkBytes: 262144,
    processingPollMs: 10,
    dailyUploads: 1,
    dailyUnits: 1,
  });
  afterAll(() => http.close());

  it('takes one video and at most one thumbnail image', () => {
    const ok = {
      content: 'desc',
      media: [media('v', 'video/mp4'), media('t', 'image/jpeg')],
      options: { madeForKids: false },
    };
    expect(provider.validate(ok, YOUTUBE_LIMITS)).toEqual([]);
    const none = provider.validate(
      { content: 'x', media: [media('t', 'image/png')], options: { madeForKids: false } },
      YOUTUBE_LIMITS,
    );
    expect(none).toEqual([{ field: 'mediaIds', message: expect.stringContaining('one video (got 0)') }]);
  });

  it('holds a Short to vertical videos of at most three minutes', () => {
    const wide = provider.validate(
      {
        content: 'x',
        media: [media('v', 'video/mp4', 1920, 1080, { durationMs: 200_000 })],
        options: { madeForKids: false, short: true },
      },
      YOUTUBE_LIMITS,
    );
    expect(wide.map((p) => p.message)).toEqual([
      expect.stringContaining('vertical or square'),
      expect.stringContaining('at most 180 seconds'),
    ]);
  });
});

describe('resumable upload offsets', () => {
  it('reads Range: bytes=0-N as the next byte N + 1, none as 0', () => {
    expect(nextOffset({ range: 'bytes=0-262143' })).toBe(262144);
    expect(nextOffset({})).toBe(0);
  });
});
