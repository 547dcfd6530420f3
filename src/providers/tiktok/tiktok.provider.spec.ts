import { mapTikTokFailure, TikTokAuditRequiredError } from './tiktok-api.client';
import { tiktokChunkRange, tiktokChunking } from './tiktok.limits';
import { readTikTokOptions } from './tiktok.options';
import { CredentialsRevokedError, TransientProviderError } from '../provider.errors';

const MB = 1024 * 1024;

describe('TikTok chunking', () => {
  it('sends a video under 5 MB whole', () => {
    expect(tiktokChunking(3 * MB, 10 * MB)).toEqual({ chunkSize: 3 * MB, totalChunkCount: 1 });
  });

  it('rounds the count down and lets the last chunk take the trailing bytes', () => {
    const c = tiktokChunking(25 * MB + 7, 10 * MB);
    expect(c).toEqual({ chunkSize: 10 * MB, totalChunkCount: 2 });
    expect(tiktokChunkRange(1, 25 * MB + 7, c)).toEqual({ first: 10 * MB, last: 25 * MB + 6 });
  });

  it('keeps chunks within 5 to 64 MB and at most 1000 of them', () => {
    expect(tiktokChunking(100 * MB, 1 * MB).chunkSize).toBe(5 * MB);
    expect(tiktokChunking(4000 * MB, 64 * MB).totalChunkCount).toBeLessThanOrEqual(1000);
  });
});

describe('TikTok options', () => {
  it('requires a privacy level and names the allowed ones', () => {
    expect(readTikTokOptions({}, ['SELF_ONLY']).problems).toEqual([
      {
        field: 'options.privacyLevel',
        message: expect.stringContaining(
          'is required (TikTok has the creator choose who can watch, never the app): one of SELF_ONLY',
        ),
      },
    ]);
    expect(
      readTikTokOptions({ privacyLevel: 'PUBLIC_TO_EVERYONE' }, ['FOLLOWER_OF_CREATOR', 'SELF_ONLY']).problems[0]
        .message,
    ).toBe('must be one of FOLLOWER_OF_CREATOR, SELF_ONLY for this creator (got "PUBLIC_TO_EVERYONE")');
  });

  it("checks photo posts' own options: the title's length, the cover among the photos, no video options", () => {
    const photo = (o: Record<string, unknown>, count = 3) =>
      readTikTokOptions({ privacyLevel: 'SELF_ONLY', ...o }, null, 'photo', count);
    expect(photo({ title: 'Carousel', photoCoverIndex: 2, autoAddMusic: true }).options).toEqual(
      expect.objectContaining({ title: 'Carousel', photoCoverIndex: 2, autoAddMusic: true }),
    );
    expect(photo({ title: 'x'.repeat(91) }).problems.map((p) => p.field)).toEqual(['options.title']);
    expect(photo({ photoCoverIndex: 3 }).problems).toEqual([
      { field: 'options.photoCoverIndex', message: "must name one of the post's 3 photos (0 to 2)" },
    ]);
    expect(photo({ videoCoverTimestampMs: 0, disableStitch: true }).problems.map((p) => p.field)).toEqual([
      'options.videoCoverTimestampMs',
      'options.disableStitch',
    ]);
    expect(
      readTikTokOptions({ privacyLevel: 'SELF_ONLY', title: 'T' }, null, 'video').problems.map((p) => p.message),
    ).toEqual(['applies to TikTok photo posts only']);
    // Unknown kind (no media yet): nothing refused for the kind.
    expect(readTikTokOptions({ privacyLevel: 'SELF_ONLY', title: 'T', disableDuet: true }, null).problems).toEqual([]);
  });

  it('refuses branded content kept private', () => {
    expect(
      readTikTokOptions({ privacyLevel: 'SELF_ONLY', brandContent: true }, null).problems.map((p) => p.field),
    ).toEqual(['options.brandContent']);
  });
});

describe('TikTok failures', () => {
  const res = (status: number, code: string) => ({
    status,
    headers: {},
    data: { data: {}, error: { code, message: 'm', log_id: 'l' } },
  });

  it('types the unaudited-app refusals as permanent, and maps tokens and rate limits', () => {
    const audit = mapTikTokFailure(res(403, 'unaudited_client_can_only_post_to_private_accounts'), 'content');
    expect(audit).toBeInstanceOf(TikTokAuditRequiredError);
    expect(audit.transient).toBe(false);
    expect(mapTikTokFailure(res(401, 'access_token_invalid'), 'content')).toBeInstanceOf(CredentialsRevokedError);
    expect(mapTikTokFailure(res(429, 'rate_limit_exceeded'), 'content')).toBeInstanceOf(TransientProviderError);
  });
});
