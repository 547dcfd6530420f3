/**
 * Video on Facebook Pages, through the real app against the Facebook fake: a vertical video that fits
 * the Reel specifications goes through the Reels publishing flow (start, upload by file_url, finish
 * with video_state=PUBLISHED, so never a draft), another through /videos as a published Page video;
 * both polled by the publisher's delayed jobs until Facebook has processed them. A processing error
 * fails the target with VIDEO_PROCESSING_FAILED, a wait over VIDEO_PROCESSING_MAX_WAIT_SECONDS with
 * VIDEO_PROCESSING_TIMEOUT, and a retry mid-flow goes on with the saved video: one upload, one post.
 */
import { createHash } from 'node:crypto';
import { MediaClient, sha256 } from '../media/media-support';
import { videoFixture } from '../factories/video.factory';
import { FACEBOOK_ROUTES, FacebookFake } from '../fakes/facebook.fake';
import { useOAuthApp } from '../oauth/oauth-harness';

const PAGE = '110000000000001';
const REEL = videoFixture('reel-9x16-4s.mp4');
const CLIP = videoFixture('h264-aac-faststart.mp4');
const hashOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('Facebook Page video and Reels (against the fake)', () => {
  const fb = new FacebookFake({ videoProcessingPolls: 3 });
  const h = useOAuthApp('facebook', fb, {
    reachable: true,
    env: { META_VIDEO_POLL_MS: '300', VIDEO_PROCESSING_MAX_WAIT_SECONDS: '5' },
  });
  let channelId: string;
  let reel: string;
  let clip: string;
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
  const videosWithText = (text: string) => fb.videosOf(PAGE).filter((v) => v.description === text);
  const postsWithText = (text: string) => fb.posts.filter((p) => p.text === text);
  const statusReads = (id: string) =>
    fb.requests.filter((r) => r.route === FACEBOOK_ROUTES.object && r.path.endsWith(`/${id}`)).length;

  beforeAll(async () => {
    // One Page the user may publish to: the authorization connects it at once.
    channelId = await h.connect();
    reel = await upload('reel.mp4', 'video/mp4', REEL);
    clip = await upload('clip.mp4', 'video/mp4', CLIP);
    image = await h.uploadPng(40, 30);
  });

  it('refuses at validation a video with an image, and a forced Reel that does not fit the Reel specifications', async () => {
    const mixed = await validate({ content: 'x', mediaIds: [clip, image] });
    expect(mixed.body.problems).toEqual([
      expect.objectContaining({
        field: 'mediaIds',
        message: expect.stringMatching(/Facebook does not take images and video in one post$/),
      }),
    ]);
    const forced = await validate({
      content: 'x',
      mediaIds: [clip],
      targets: [{ channelId, options: { videoFormat: 'reel' } }],
    });
    expect(forced.body.problems).toEqual([
      expect.objectContaining({
        field: 'mediaIds[0]',
        message: expect.stringMatching(
          /cannot be a Facebook Reel: it is 2 s long \(Reels: 3 to 90 s\); it is 320 x 240 \(Reels: 9:16\)/,
        ),
      }),
    ]);
  });

  it('publishes a vertical video as a Reel: start, upload by file_url, finish PUBLISHED, then processing polls', async () => {
    const starts = fb.reelStarts;
    const uploads = fb.uploads;
    const post = await publish('a facebook reel', [reel]);
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(1);
    expect([fb.reelStarts - starts, fb.uploads - uploads]).toEqual([1, 1]);
    const [video] = videosWithText('a facebook reel');
    expect(video).toEqual(expect.objectContaining({ kind: 'reel', finishes: 1, videoState: 'PUBLISHED' }));
    expect(statusReads(video.id)).toBeGreaterThanOrEqual(4);
    // Facebook fetched the bytes itself, from our signed URL given in the file_url header.
    const rupload = fb.requests.find((r) => r.route === FACEBOOK_ROUTES.upload && r.path.endsWith(`/${video.id}`))!;
    expect(new URL(String(rupload.headers.file_url)).pathname).toBe(`/api/media/${reel}/content`);
    expect(video.fetch).toEqual(expect.objectContaining({ sha256: hashOf(REEL), durationSeconds: 4 }));
    expect(post.targets[0]).toMatchObject({
      platformPostId: video.id,
      url: `https://www.facebook.com/reel/${video.id}`,
    });
    expect(postsWithText('a facebook reel')).toEqual([expect.objectContaining({ mediaType: 'REELS' })]);
  });

  it('publishes another video as a published Page video through /videos', async () => {
    const creates = fb.pageVideoCreates;
    const post = await publish('a page video', [clip]);
    expect(post.status).toBe('published');
    expect(fb.pageVideoCreates - creates).toBe(1);
    const [video] = videosWithText('a page video');
    expect(video).toEqual(expect.objectContaining({ kind: 'video', videoState: 'PUBLISHED' }));
    expect(video.fetch).toEqual(expect.objectContaining({ sha256: hashOf(CLIP) }));
    expect(post.targets[0]).toMatchObject({
      platformPostId: video.id,
      url: `https://www.facebook.com/${PAGE}/videos/${video.id}/`,
    });
    expect(postsWithText('a page video')).toEqual([expect.objectContaining({ mediaType: 'VIDEO' })]);
  });

  it('publishes a vertical video as a Page video when the options say so', async () => {
    const starts = fb.reelStarts;
    const post = await publish('vertical page video', [reel], { videoFormat: 'video' });
    expect(post.status).toBe('published');
    expect(fb.reelStarts).toBe(starts);
    expect(videosWithText('vertical page video')).toEqual([expect.objectContaining({ kind: 'video' })]);
  });

  it('fails the target with VIDEO_PROCESSING_FAILED, not retried, when Facebook cannot process the video', async () => {
    fb.failNextVideo();
    const post = await publish('broken reel', [reel]);
    expect(post.status).toBe('failed');
    expect(post.targets[0]).toMatchObject({
      attempts: 1,
      error: { code: 'VIDEO_PROCESSING_FAILED', message: expect.stringContaining('Video processing failed (1363040)') },
    });
    expect(postsWithText('broken reel')).toHaveLength(0);
  });

  it('fails the target with VIDEO_PROCESSING_FAILED when Facebook refuses the size', async () => {
    fb.limitVideos({ maxVideoBytes: 10_000 });
    try {
      const post = await publish('too big page video', [clip]);
      expect(post.targets[0].error).toEqual({
        code: 'VIDEO_PROCESSING_FAILED',
        message: expect.stringContaining('The video file is too large'),
      });
    } finally {
      fb.limitVideos({ maxVideoBytes: 1024 * 1024 * 1024 });
    }
  });

  it('fails the target with VIDEO_PROCESSING_TIMEOUT once processing outlasts VIDEO_PROCESSING_MAX_WAIT_SECONDS', async () => {
    fb.slowNextContainer(10_000);
    const post = await publish('stuck reel', [reel]);
    expect(post.targets[0].error).toEqual({
      code: 'VIDEO_PROCESSING_TIMEOUT',
      message: expect.stringMatching(/the limit is 5 s/),
    });
    expect(videosWithText('stuck reel')).toHaveLength(1);
    expect(postsWithText('stuck reel')).toHaveLength(0);
  });

  it('goes on with the saved Reel after failures mid-flow: one upload session, one upload, one post', async () => {
    const starts = fb.reelStarts;
    const uploads = fb.uploads;
    // The upload is refused once (503, not carried out), then a status read fails once mid-processing.
    fb.failNext(1, 503, FACEBOOK_ROUTES.upload);
    let failedRead = false;
    fb.failNext(1, 503, FACEBOOK_ROUTES.object, (req) => {
      const video = videosWithText('retried reel')[0];
      if (!video || failedRead || !req.path.endsWith(`/${video.id}`)) return false;
      failedRead = true;
      return true;
    });
    const post = await publish('retried reel', [reel]);
    expect(post.status).toBe('published');
    expect(failedRead).toBe(true);
    expect(post.targets[0].attempts).toBeGreaterThanOrEqual(3);
    expect(fb.reelStarts - starts).toBe(1);
    expect(fb.uploads - uploads).toBe(1);
    expect(videosWithText('retried reel')).toEqual([expect.objectContaining({ finishes: 1 })]);
    expect(postsWithText('retried reel')).toHaveLength(1);
  });
  // Last: every call of the file (uploads, thumbnails, comments, reads) as the network describes it.
  it('sent Facebook nothing its Graph node specs refuses', () => {
    expect(fb.describedBy).toBeDefined();
    expect(fb.descriptionViolations).toEqual([]);
  });
});
