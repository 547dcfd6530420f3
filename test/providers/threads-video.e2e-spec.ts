/**
 * Video on Threads, through the real app against the Threads fake: VIDEO containers from our signed
 * URL, polled by the publisher's delayed jobs until FINISHED (no worker waits); carousels mixing an
 * image and a video; ERROR failing the target with VIDEO_PROCESSING_FAILED; a wait longer than
 * VIDEO_PROCESSING_MAX_WAIT_SECONDS failing it with VIDEO_PROCESSING_TIMEOUT; and a retry in the
 * middle of processing going on with the saved container (one container, one post).
 */
import { createHash } from 'node:crypto';
import { MediaClient, sha256 } from '../media/media-support';
import { videoFixture } from '../factories/video.factory';
import { THREADS_ROUTES, ThreadsFake } from '../fakes/threads.fake';
import { useOAuthApp } from '../oauth/oauth-harness';

const CLIP = videoFixture('h264-aac-faststart.mp4');
const hashOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('Threads video (against the fake)', () => {
  const threads = new ThreadsFake({ videoProcessingPolls: 3 });
  const h = useOAuthApp('threads', threads, {
    reachable: true,
    env: {
      META_CONTAINER_POLL_MS: '20',
      META_VIDEO_POLL_MS: '300',
      // The wait counts the conversion of a WebM by the media module's job too, on a shared machine.
      VIDEO_PROCESSING_MAX_WAIT_SECONDS: '15',
    },
  });
  let channelId: string;
  let clip: string;
  let image: string;

  const upload = async (name: string, mimeType: string, bytes: Buffer) => {
    const media = new MediaClient(h.t, h.key);
    const init = await media.initialize({ filename: name, mimeType, size: bytes.length, sha256: sha256(bytes) });
    expect((await media.chunk(init.body.id as string, 0, bytes)).status).toBe(200);
    expect((await media.finalize(init.body.id as string)).body.status).toBe('ready');
    return init.body.id as string;
  };
  const publish = async (content: string, mediaIds: string[]) =>
    h.settled(await h.publishNow(channelId, content, mediaIds));
  const postsWithText = (text: string) => threads.posts.filter((p) => p.text === text);
  const containersWithText = (text: string) => [...threads.containers.values()].filter((c) => c.text === text);
  const statusReads = (id: string) =>
    threads.requests.filter((r) => r.route === THREADS_ROUTES.object && r.path.endsWith(`/${id}`)).length;

  beforeAll(async () => {
    channelId = await h.connect();
    clip = await upload('clip.mp4', 'video/mp4', CLIP);
    image = await h.uploadPng(40, 30);
  });

  it('publishes a video after several processing polls, from our signed URL, as one attempt', async () => {
    const post = await publish('a threads video', [clip]);
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(1);
    const [container] = containersWithText('a threads video');
    expect(container).toEqual(expect.objectContaining({ mediaType: 'VIDEO', status: 'PUBLISHED' }));
    // IN_PROGRESS three times, then FINISHED: each read a delayed poll of the publisher.
    expect(statusReads(container.id)).toBeGreaterThanOrEqual(4);
    expect(new URL(container.videoUrl!).pathname).toBe(`/api/media/${clip}/content`);
    const [onThreads] = postsWithText('a threads video');
    expect(onThreads.videos).toEqual([
      expect.objectContaining({ status: 200, sha256: hashOf(CLIP), durationSeconds: 2 }),
    ]);
    expect(post.targets[0].platformPostId).toBe(onThreads.id);
  });

  it('converts a WebM once to H.264/AAC MP4 with its index first, and Threads downloads the converted bytes', async () => {
    const webmBytes = videoFixture('vp9-opus.webm');
    const webm = await upload('clip.webm', 'video/webm', webmBytes);
    const post = await publish('a converted video', [webm]);
    expect(post.targets[0].error).toBeNull();
    expect(post.status).toBe('published');
    const [container] = containersWithText('a converted video');
    // The variant's signed URL, not the original's.
    expect(new URL(container.videoUrl!).searchParams.get('variant')).toMatch(/^mp4/);
    expect(container.video).toEqual(expect.objectContaining({ status: 200, sniffed: 'video/mp4' }));
    expect(container.video!.sha256).not.toBe(hashOf(webmBytes));
    expect(container.video!.durationSeconds).toBeCloseTo(2, 0);
    const item = await h.t.request('GET', `/api/media/${webm}`, { key: h.key });
    expect(item.body.mimeType).toBe('video/webm');
  });

  it('publishes a carousel mixing an image and a video: each item polled, then the carousel', async () => {
    const post = await publish('image and video', [image, clip]);
    expect(post.status).toBe('published');
    const [onThreads] = postsWithText('image and video');
    expect(onThreads.mediaType).toBe('CAROUSEL');
    expect(onThreads.images).toHaveLength(1);
    expect(onThreads.videos).toHaveLength(1);
    const items = [...threads.containers.values()].filter((c) => c.isCarouselItem && c.mediaId === null);
    expect(items.map((c) => c.mediaType).sort()).toEqual(expect.arrayContaining(['IMAGE', 'VIDEO']));
    expect(containersWithText('image and video')).toHaveLength(1);
  });

  it('fails the target with VIDEO_PROCESSING_FAILED, not retried, when Threads cannot process the video', async () => {
    threads.failNextVideo();
    const post = await publish('broken video', [clip]);
    expect(post.status).toBe('failed');
    expect(post.targets[0]).toMatchObject({
      attempts: 1,
      error: { code: 'VIDEO_PROCESSING_FAILED', message: expect.stringContaining('FAILED_PROCESSING_VIDEO') },
    });
    expect(postsWithText('broken video')).toHaveLength(0);
  });

  it("fails the target with VIDEO_PROCESSING_FAILED naming Threads' reason when it refuses the duration", async () => {
    threads.limitVideos({ maxVideoSeconds: 1 });
    try {
      const post = await publish('too long for threads', [clip]);
      expect(post.targets[0].error).toEqual({
        code: 'VIDEO_PROCESSING_FAILED',
        message: expect.stringContaining('INVALID_DURATION'),
      });
    } finally {
      threads.limitVideos({ maxVideoSeconds: 300 });
    }
  });

  it('fails the target with VIDEO_PROCESSING_TIMEOUT once processing outlasts VIDEO_PROCESSING_MAX_WAIT_SECONDS', async () => {
    threads.slowNextContainer(10_000);
    const post = await publish('stuck video', [clip]);
    expect(post.status).toBe('failed');
    expect(post.targets[0].error).toEqual({
      code: 'VIDEO_PROCESSING_TIMEOUT',
      message: expect.stringMatching(/the limit is 15 s/),
    });
    expect(containersWithText('stuck video')).toHaveLength(1);
    expect(postsWithText('stuck video')).toHaveLength(0);
  });

  it('goes on with the saved container after a failure mid-processing and after a lost publish answer: one container, one post', async () => {
    // A status read fails once while Threads processes (the attempt is retried), and the publish is
    // carried out but answered 503 (the retry finds the container PUBLISHED).
    let failedRead = false;
    threads.failNext(1, 503, THREADS_ROUTES.object, (req) => {
      const container = containersWithText('retried video')[0];
      if (!container || failedRead || !req.path.endsWith(`/${container.id}`)) return false;
      failedRead = true;
      return true;
    });
    threads.failAfterPublishNext(503);
    const fetchesBefore = threads.videoFetches.length;
    const post = await publish('retried video', [clip]);
    expect(post.status).toBe('published');
    expect(failedRead).toBe(true);
    expect(post.targets[0].attempts).toBeGreaterThanOrEqual(2);
    const containers = containersWithText('retried video');
    expect(containers).toHaveLength(1);
    expect(threads.publishesOf(containers[0].id)).toHaveLength(1);
    expect(postsWithText('retried video')).toHaveLength(1);
    expect(threads.videoFetches.length - fetchesBefore).toBe(1);
  });
});
