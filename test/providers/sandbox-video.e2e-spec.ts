/**
 * Video on the sandbox network: `limits.video` on providers and channels, validation naming each
 * violation at its media path with the limit, and a video post published through the publisher's
 * processing wait (delayed polls, no worker held): success, failure and timeout.
 */
import { MediaClient, sha256 } from '../media/media-support';
import { makePng } from '../factories/png.factory';
import { videoFixture } from '../factories/video.factory';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

describe('sandbox video', () => {
  let t: TestApp;
  let ws: { key: string; workspaceId: string };
  let media: MediaClient;
  let clip: string; // 2 s H.264/AAC MP4
  let short: string; // 2 s vertical
  let image: string;

  beforeAll(async () => {
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, VIDEO_PROCESSING_MAX_WAIT_SECONDS: '4' } });
    ws = await t.createWorkspace('sandbox-video');
    media = new MediaClient(t, ws.key);
    const upload = async (name: string, mimeType: string, bytes: Buffer) => {
      const init = await media.initialize({ filename: name, mimeType, size: bytes.length, sha256: sha256(bytes) });
      expect((await media.chunk(init.body.id as string, 0, bytes)).status).toBe(200);
      const fin = await media.finalize(init.body.id as string);
      expect(fin.body.status).toBe('ready');
      return init.body.id as string;
    };
    clip = await upload('clip.mp4', 'video/mp4', videoFixture('h264-aac-faststart.mp4'));
    short = await upload('short.mp4', 'video/mp4', videoFixture('vertical-9x16.mp4'));
    image = await upload('a.png', 'image/png', makePng(16, 16));
  });
  afterAll(() => t?.close());

  const connect = async (credentials: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/channels', { key: ws.key, body: { provider: 'sandbox', credentials } });
    expect(res.status).toBe(201);
    return res.body as { id: string; limits: Record<string, unknown> };
  };
  const validate = (body: Record<string, unknown>) => t.request('POST', '/api/posts/validate', { key: ws.key, body });

  async function publish(channelId: string, content: string, mediaIds: string[]): Promise<any> {
    const created = await t.request('POST', '/api/posts', {
      key: ws.key,
      body: { content, channelIds: [channelId], mediaIds, publishNow: true },
    });
    expect(created.status).toBe(201);
    return waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key: ws.key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
      30_000,
    );
  }

  it('lists limits.video on every provider: the sandbox takes video, networks that cannot publish it yet say null', async () => {
    // Networks whose adapters publish video; every other one says null until its adapter does.
    const publishingVideo = new Set([
      'telegram',
      'discord',
      'slack',
      'youtube',
      'tiktok',
      'threads',
      'instagram',
      'facebook',
      'x',
      'linkedin',
      'mastodon',
      'bluesky',
      'pinterest',
      'reddit',
      'tumblr',
      'wordpress',
      'nostr',
    ]);
    const res = await t.request('GET', '/api/providers', { key: ws.key });
    expect(res.status).toBe(200);
    for (const p of res.body.data as Array<{ id: string; limits: { video: unknown } }>) {
      expect(p.limits).toHaveProperty('video');
      if (p.id === 'sandbox') {
        expect(p.limits.video).toMatchObject({ maxDurationSeconds: 600, maxPerPost: 1, minDurationSeconds: 0 });
      } else if (publishingVideo.has(p.id)) {
        expect(p.limits.video).toMatchObject({ maxBytes: expect.any(Number), mimeTypes: expect.any(Array) });
      } else {
        expect({ id: p.id, video: p.limits.video }).toEqual({ id: p.id, video: null });
      }
    }
  });

  it('takes maxVideoSeconds on sandbox credentials; 0 means no video at all', async () => {
    expect((await connect({ name: 'Short videos', maxVideoSeconds: 1 })).limits.video).toMatchObject({
      maxDurationSeconds: 1,
    });
    const none = await connect({ name: 'No video', maxVideoSeconds: 0 });
    expect(none.limits.video).toBeNull();
    const res = await validate({ content: 'x', channelIds: [none.id], mediaIds: [image, clip] });
    expect(res.body.problems).toEqual([
      expect.objectContaining({ field: 'mediaIds[1]', message: expect.stringMatching(/does not take video/) }),
    ]);
  });

  it('names each violation at its media path with the limit: duration, count, thread and target overrides', async () => {
    const tight = await connect({ name: 'One second', maxVideoSeconds: 1 });
    const res = await validate({
      content: 'x',
      channelIds: [tight.id],
      mediaIds: [image, clip],
      thread: [{ content: 'part two', mediaIds: [short, clip] }],
    });
    expect(res.body.valid).toBe(false);
    const fields = (res.body.problems as Array<{ field: string; message: string }>).map((p) => [p.field, p.message]);
    expect(fields).toEqual(
      expect.arrayContaining([
        ['mediaIds[1]', expect.stringMatching(/is 2 s long; The sandbox takes at most 1 s/)],
        ['thread[0].mediaIds', expect.stringMatching(/at most 1 video per post \(got 2\)/)],
        ['thread[0].mediaIds[0]', expect.stringMatching(/at most 1 s/)],
        ['thread[0].mediaIds[1]', expect.stringMatching(/at most 1 s/)],
      ]),
    );
    const overridden = await validate({
      content: 'x',
      channelIds: [tight.id],
      targets: [{ channelId: tight.id, mediaIds: [clip] }],
    });
    expect(overridden.body.problems).toEqual([
      expect.objectContaining({ field: 'targets[0].mediaIds[0]', message: expect.stringMatching(/at most 1 s/) }),
    ]);
    // POST /posts refuses the same, naming the path.
    const created = await t.request('POST', '/api/posts', {
      key: ws.key,
      body: { content: 'x', channelIds: [tight.id], mediaIds: [clip], publishNow: true },
    });
    expect(created.status).toBe(400);
    expect(created.body.details).toEqual([expect.objectContaining({ field: 'mediaIds[0]' })]);
  });

  it('publishes a video after the sandbox processed it, polled by delayed jobs; the timeline lists its duration', async () => {
    const channel = await connect({ name: 'Processing', videoProcessingSeconds: 2 });
    const started = Date.now();
    const post = await publish(channel.id, 'a video', [clip]);
    expect(post.status).toBe('published');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    const timeline = await t.request('GET', `/api/channels/${channel.id}/sandbox/posts`, { key: ws.key });
    expect(timeline.body.data).toEqual([
      expect.objectContaining({
        content: 'a video',
        media: [expect.objectContaining({ id: clip, mimeType: 'video/mp4', durationMs: 2000 })],
      }),
    ]);
    // The polls were not counted as attempts: the target reads as one attempt.
    const attempts = await t.dataSource.query('SELECT attempts FROM post_targets WHERE post_id = $1', [post.id]);
    expect(attempts).toEqual([{ attempts: 1 }]);
  });

  it('fails the target with VIDEO_PROCESSING_FAILED, not retried, when the network cannot process the video', async () => {
    const channel = await connect({ name: 'Failing', videoProcessingSeconds: 1 });
    const post = await publish(channel.id, 'broken #video-processing-fail', [clip]);
    expect(post.status).toBe('failed');
    expect(post.targets[0]).toMatchObject({
      status: 'failed',
      error: { code: 'VIDEO_PROCESSING_FAILED', message: expect.stringMatching(/could not be processed/) },
    });
  });

  it('fails the target with VIDEO_PROCESSING_TIMEOUT once the wait passes VIDEO_PROCESSING_MAX_WAIT_SECONDS', async () => {
    const channel = await connect({ name: 'Stuck', videoProcessingSeconds: 1 });
    const post = await publish(channel.id, 'slow #video-processing-stuck', [clip]);
    expect(post.status).toBe('failed');
    expect(post.targets[0]).toMatchObject({
      status: 'failed',
      error: { code: 'VIDEO_PROCESSING_TIMEOUT', message: expect.stringMatching(/the limit is 4 s/) },
    });
    const timeline = await t.request('GET', `/api/channels/${channel.id}/sandbox/posts`, { key: ws.key });
    expect(timeline.body.data).toEqual([]);
  });
});
