import { OutboundHttp } from '../common/http/outbound-http';
import { videoProblems } from './draft-validation.util';
import { MASTODON_DEFAULT_LIMITS } from './mastodon/mastodon.limits';
import { createProviderRegistry } from './provider.registry';
import { SandboxTimeline } from './sandbox/sandbox-timeline.port';
import type { MediaDescriptor } from './social-provider.interface';
import { TIKTOK_LIMITS } from './tiktok/tiktok.limits';
import { X_LIMITS } from './x/x.limits';

function video(over: Partial<MediaDescriptor> = {}): MediaDescriptor {
  return {
    id: 'v1',
    mimeType: 'video/webm',
    size: 5_000,
    width: 160,
    height: 120,
    filename: 'clip.webm',
    durationMs: 4_000,
    frameRate: 30,
    videoCodec: 'vp8',
    audioCodec: null,
    bitrate: 10_000,
    ...over,
  };
}

describe('videoProblems: frame rate and frame size', () => {
  const mastodon = MASTODON_DEFAULT_LIMITS.video!;

  it('refuses a frame rate above the limit of a network whose publisher sends the file as it is', () => {
    expect(videoProblems('Mastodon', [video({ frameRate: 240 })], mastodon)).toEqual([
      { field: 'mediaIds[0]', message: 'Video v1 has 240 frames per second; Mastodon takes at most 120' },
    ]);
    expect(videoProblems('Mastodon', [video({ frameRate: 120 })], mastodon)).toEqual([]);
    // 119.88 and 120.004 are 120 as containers round it.
    expect(videoProblems('Mastodon', [video({ frameRate: 120.004 })], mastodon)).toEqual([]);
  });

  it('refuses more pixels per frame than the matrix limit, whatever the shape', () => {
    expect(videoProblems('Mastodon', [video({ width: 4096, height: 2160 })], mastodon)).toEqual([
      {
        field: 'mediaIds[0]',
        message:
          'Video v1 is 4096 x 2160 (8,847,360 pixels per frame); Mastodon takes at most 8,294,400 pixels per frame',
      },
    ]);
    expect(videoProblems('Mastodon', [video({ width: 3840, height: 2160 })], mastodon)).toEqual([]);
    expect(videoProblems('Mastodon', [video({ width: 2160, height: 3840 })], mastodon)).toEqual([]);
  });

  it('leaves frame rate and size to the conversion where the publisher converts (convertsVideo)', () => {
    const x = X_LIMITS.video!;
    expect(videoProblems('X', [video({ frameRate: 240 })], x, { convertsVideo: true })).toEqual([]);
    expect(videoProblems('X', [video({ frameRate: 240 })], x)).toEqual([
      { field: 'mediaIds[0]', message: 'Video v1 has 240 frames per second; X takes at most 60' },
    ]);
  });
});

describe('which networks refuse a fast video at validation', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  afterAll(() => http.close());
  const registry = createProviderRegistry(
    { http, resolve: <T>(token: unknown): T => (token === SandboxTimeline ? {} : undefined) as T },
    {},
  );
  const fast = { content: 'fast', media: [video({ frameRate: 240 })] };

  it('TikTok (sent as it is) refuses 240 fps, naming its 60 fps', () => {
    expect(registry.get('tiktok').validate(fast, TIKTOK_LIMITS)).toContainEqual({
      field: 'mediaIds[0]',
      message: 'Video v1 has 240 frames per second; TikTok takes at most 60',
    });
  });

  it('Mastodon refuses 240 fps against its instance limit', () => {
    expect(registry.get('mastodon').validate(fast, MASTODON_DEFAULT_LIMITS)).toContainEqual({
      field: 'mediaIds[0]',
      message: 'Video v1 has 240 frames per second; Mastodon takes at most 120',
    });
  });

  it.each(['x', 'linkedin', 'threads', 'instagram', 'facebook'])(
    '%s converts it to its frame rate: no frame rate problem at validation',
    (id) => {
      const limits = registry.plugin(id).defaultLimits;
      const problems = registry.get(id).validate(fast, limits);
      expect(problems.filter((p) => /frames per second/.test(p.message))).toEqual([]);
    },
  );
});
