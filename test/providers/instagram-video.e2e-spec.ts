/**
 * Video on Instagram, through the real app against the Instagram fake: a video alone is a Reel
 * (`REELS`, its cover the poster frame or the post's cover image, `share_to_feed` from the options),
 * carousels mix images and videos, and every container is polled by the publisher's delayed jobs
 * until FINISHED. ERROR fails the target with VIDEO_PROCESSING_FAILED (Instagram's error code in the
 * message), a wait over VIDEO_PROCESSING_MAX_WAIT_SECONDS with VIDEO_PROCESSING_TIMEOUT, and a retry
 * mid-processing goes on with the saved container.
 */
import { createHash } from 'node:crypto';
import { MediaClient, sha256 } from '../media/media-support';
import { videoFixture } from '../factories/video.factory';
import { INSTAGRAM_ROUTES, InstagramFake } from '../fakes/instagram.fake';
import { useOAuthApp } from '../oauth/oauth-harness';

const REEL = videoFixture('reel-9x16-4s.mp4');
const SHORT = videoFixture('h264-aac-faststart.mp4');
const hashOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('Instagram video (against the fake)', () => {
  const ig = new InstagramFake({ videoProcessingPolls: 3 });
  const h = useOAuthApp('instagram', ig, {
    reachable: true,
    env: {
      META_CONTAINER_POLL_MS: '20',
      META_VIDEO_POLL_MS: '300',
      VIDEO_PROCESSING_MAX_WAIT_SECONDS: '5',
    },
  });
  let channelId: string;
  let reel: string;
  let short: string;
  let image: string;

  const upload = async (name: string, mimeType: string, bytes: Buffer) => {
    const media = new MediaClient(h.t, h.key);
    const init = await media.initialize({ filename: name, mimeType, size: bytes.length, sha256: sha256(bytes) });
    expect((await media.chunk(init.body.id as string, 0, bytes)).status).toBe(200);
    expect((await media.finalize(init.body.id as string)).body.status).toBe('ready');
    return init.body.id as string;
  };
  const publish = async (content: string, mediaIds: string[], options?: Record<string, unknown>) =>
    h.settled(await h.publishNow(channelId, content, mediaIds, options ? { targets: [{ channelId, options }] } : {}));
  const validate = (body: Record<string, unknown>) =>
    h.t.request('POST', '/api/posts/validate', { key: h.key, body: { channelIds: [channelId], ...body } });
  const postsWithText = (text: string) => ig.posts.filter((p) => p.text === text);
  const containersWithText = (text: string) => [...ig.containers.values()].filter((c) => c.text === text);
  const statusReads = (id: string) =>
    ig.requests.filter((r) => r.route === INSTAGRAM_ROUTES.object && r.path.endsWith(`/${id}`)).length;

  beforeAll(async () => {
    channelId = await h.connect();
    reel = await upload('reel.mp4', 'video/mp4', REEL);
    short = await upload('short.mp4', 'video/mp4', SHORT);
    image = await h.uploadPng(40, 30);
  });

  it('refuses at validation what Instagram would: a video under 3 s, a cover image option without its image', async () => {
    const tooShort = await validate({ content: 'x', mediaIds: [short] });
    expect(tooShort.body.problems).toEqual([
      expect.objectContaining({ field: 'mediaIds[0]', message: expect.stringMatching(/Instagram takes at least 3 s/) }),
    ]);
    const noCover = await validate({
      content: 'x',
      mediaIds: [reel],
      targets: [{ channelId, options: { coverImage: true } }],
    });
    expect(noCover.body.problems).toEqual([
      expect.objectContaining({
        field: 'targets[0].options.coverImage',
        message: expect.stringMatching(/the video, then the image/),
      }),
    ]);
    const unknown = await validate({
      content: 'x',
      mediaIds: [reel],
      targets: [{ channelId, options: { reel: true } }],
    });
    expect(unknown.body.valid).toBe(false);
  });

  it('publishes a video alone as a Reel after several processing polls, its cover the poster frame, shared to the feed', async () => {
    const post = await publish('an instagram reel', [reel]);
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(1);
    const [container] = containersWithText('an instagram reel');
    expect(container).toEqual(
      expect.objectContaining({ mediaType: 'REELS', status: 'PUBLISHED', shareToFeed: 'true' }),
    );
    expect(statusReads(container.id)).toBeGreaterThanOrEqual(4);
    const cover = new URL(container.coverUrl!);
    expect(cover.pathname).toBe(`/api/media/${reel}/content`);
    expect(cover.searchParams.get('variant')).toBe('poster');
    // The poster is served at that signed URL, as Instagram would fetch it.
    const poster = await fetch(container.coverUrl!);
    expect(poster.status).toBe(200);
    expect(poster.headers.get('content-type')).toMatch(/^image\/jpeg/);
    const [onInstagram] = postsWithText('an instagram reel');
    expect(onInstagram.videos).toEqual([expect.objectContaining({ sha256: hashOf(REEL), durationSeconds: 4 })]);
    expect(onInstagram.mediaType).toBe('REELS');
  });

  it('takes the cover image and share_to_feed from the options', async () => {
    const post = await publish('reel with cover', [reel, image], { coverImage: true, shareToFeed: false });
    expect(post.status).toBe('published');
    const [container] = containersWithText('reel with cover');
    expect(container).toEqual(expect.objectContaining({ mediaType: 'REELS', shareToFeed: 'false' }));
    const cover = new URL(container.coverUrl!);
    expect(cover.pathname).toBe(`/api/media/${image}/content`);
    const served = await fetch(container.coverUrl!);
    expect(served.headers.get('content-type')).toMatch(/^image\/jpeg/);
    const [onInstagram] = postsWithText('reel with cover');
    expect([onInstagram.images.length, onInstagram.videos?.length]).toEqual([0, 1]);
  });

  it('publishes a carousel mixing an image and a video', async () => {
    const post = await publish('ig carousel', [image, reel]);
    expect(post.status).toBe('published');
    const [onInstagram] = postsWithText('ig carousel');
    expect(onInstagram.mediaType).toBe('CAROUSEL');
    expect([onInstagram.images.length, onInstagram.videos?.length]).toEqual([1, 1]);
  });

  it('fails the target with VIDEO_PROCESSING_FAILED, not retried, when Instagram cannot process the video', async () => {
    ig.failNextVideo();
    const post = await publish('broken reel', [reel]);
    expect(post.status).toBe('failed');
    expect(post.targets[0]).toMatchObject({
      attempts: 1,
      error: { code: 'VIDEO_PROCESSING_FAILED', message: expect.stringContaining('2207026') },
    });
    expect(postsWithText('broken reel')).toHaveLength(0);
  });

  it('fails the target with VIDEO_PROCESSING_FAILED when Instagram refuses the size', async () => {
    ig.limitVideos({ maxVideoBytes: 100_000 });
    try {
      const post = await publish('too big reel', [reel]);
      expect(post.targets[0].error).toEqual({
        code: 'VIDEO_PROCESSING_FAILED',
        message: expect.stringContaining('Media upload has failed with error code'),
      });
    } finally {
      ig.limitVideos({ maxVideoBytes: 300 * 1024 * 1024 });
    }
  });

  it('fails the target with VIDEO_PROCESSING_TIMEOUT once processing outlasts VIDEO_PROCESSING_MAX_WAIT_SECONDS', async () => {
    ig.slowNextContainer(10_000);
    const post = await publish('stuck reel', [reel]);
    expect(post.targets[0].error).toEqual({
      code: 'VIDEO_PROCESSING_TIMEOUT',
      message: expect.stringMatching(/the limit is 5 s/),
    });
    expect(containersWithText('stuck reel')).toHaveLength(1);
    expect(postsWithText('stuck reel')).toHaveLength(0);
  });

  it('goes on with the saved container after a failure mid-processing and a lost publish answer: one container, one post', async () => {
    let failedRead = false;
    ig.failNext(1, 503, INSTAGRAM_ROUTES.object, (req) => {
      const container = containersWithText('retried reel')[0];
      if (!container || failedRead || !req.path.endsWith(`/${container.id}`)) return false;
      failedRead = true;
      return true;
    });
    ig.failAfterPublishNext(503);
    const fetchesBefore = ig.videoFetches.length;
    const post = await publish('retried reel', [reel]);
    expect(post.status).toBe('published');
    expect(failedRead).toBe(true);
    const containers = containersWithText('retried reel');
    expect(containers).toHaveLength(1);
    expect(ig.publishesOf(containers[0].id)).toHaveLength(1);
    expect(postsWithText('retried reel')).toHaveLength(1);
    expect(ig.videoFetches.length - fetchesBefore).toBe(1);
  });
  // Last: every call of the file (uploads, thumbnails, comments, reads) as the network describes it.
  it('sent Instagram nothing its Graph node specs refuses', () => {
    expect(ig.describedBy).toBeDefined();
    expect(ig.descriptionViolations).toEqual([]);
  });
});
