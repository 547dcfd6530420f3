import { OutboundHttp } from '../../common/http/outbound-http';
import { FACEBOOK_LIMITS } from '../facebook/facebook.limits';
import { FacebookProvider, reelMisfits } from '../facebook/facebook.provider';
import { INSTAGRAM_LIMITS } from '../instagram/instagram.limits';
import { InstagramProvider } from '../instagram/instagram.provider';
import { THREADS_LIMITS } from '../threads/threads.limits';
import { ThreadsProvider } from '../threads/threads.provider';
import type { MediaDescriptor } from '../social-provider.interface';
import { metaVideoRequirements } from './meta-media';

const video = (id: string, width: number, height: number, seconds: number, extra: Partial<MediaDescriptor> = {}) =>
  ({
    id,
    mimeType: 'video/mp4',
    size: 1_000_000,
    width,
    height,
    filename: `${id}.mp4`,
    durationMs: seconds * 1000,
    frameRate: 30,
    ...extra,
  }) as MediaDescriptor;
const image = (id: string): MediaDescriptor => ({
  id,
  mimeType: 'image/jpeg',
  size: 1000,
  width: 1080,
  height: 1080,
  filename: `${id}.jpg`,
});

describe("Meta networks' video validation", () => {
  const http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 1000 });
  afterAll(() => http.close());
  const threads = new ThreadsProvider(http, { pollMs: 10, maxWaitMs: 100 });
  const instagram = new InstagramProvider(http, { pollMs: 10, maxWaitMs: 100 });
  const facebook = new FacebookProvider(http);

  it('Threads takes up to 5 minutes of video, alone or in a carousel with images, and says so at the media path', () => {
    expect(threads.validate({ content: 'x', media: [image('i'), video('v', 1080, 1920, 30)] }, THREADS_LIMITS)).toEqual(
      [],
    );
    expect(threads.validate({ content: 'x', media: [video('v', 1080, 1920, 301)] }, THREADS_LIMITS)).toEqual([
      { field: 'mediaIds[0]', message: 'Video v is 301 s long; Threads takes at most 300 s' },
    ]);
    expect(
      threads.validate({ content: 'x', media: [video('v', 1080, 1920, 10, { frameRate: 15 })] }, THREADS_LIMITS),
    ).toEqual([{ field: 'mediaIds[0]', message: 'Video v has 15 frames per second; Threads takes at least 23' }]);
  });

  it('Instagram: a Reel of 3 s to 15 minutes; carousel videos of at most 60 s; a cover image only after a video', () => {
    expect(instagram.validate({ content: 'x', media: [video('v', 1080, 1920, 600)] }, INSTAGRAM_LIMITS)).toEqual([]);
    expect(instagram.validate({ content: 'x', media: [video('v', 1080, 1920, 2)] }, INSTAGRAM_LIMITS)).toEqual([
      { field: 'mediaIds[0]', message: 'Video v is 2 s long; Instagram takes at least 3 s' },
    ]);
    expect(
      instagram.validate({ content: 'x', media: [image('i'), video('v', 1080, 1350, 61)] }, INSTAGRAM_LIMITS),
    ).toEqual([
      { field: 'mediaIds[1]', message: 'Video v is 61 s long; Instagram takes carousel videos of at most 60 s' },
    ]);
    // A 9:16 cover image is not a feed image: its aspect ratio is not checked against 4:5..1.91:1.
    const cover = { ...image('c'), width: 1080, height: 1920 };
    expect(
      instagram.validate(
        { content: 'x', media: [video('v', 1080, 1920, 61), cover], options: { coverImage: true } },
        INSTAGRAM_LIMITS,
      ),
    ).toEqual([]);
    expect(
      instagram.validate(
        { content: 'x', media: [image('i'), video('v', 1080, 1920, 10)], options: { coverImage: true } },
        INSTAGRAM_LIMITS,
      ),
    ).toEqual([
      {
        field: 'options.coverImage',
        message: 'A Reel with a cover image needs exactly two media: the video, then the image',
      },
    ]);
  });

  it('Facebook: one video alone; a forced Reel must fit the Reel specifications', () => {
    expect(facebook.validate({ content: 'x', media: [video('v', 1920, 1080, 600)] }, FACEBOOK_LIMITS)).toEqual([]);
    expect(
      facebook.validate({ content: 'x', media: [video('v', 1920, 1080, 10), image('i')] }, FACEBOOK_LIMITS),
    ).toEqual([{ field: 'mediaIds', message: 'Facebook does not take images and video in one post' }]);
    expect(
      facebook.validate(
        { content: 'x', media: [video('v', 1080, 1920, 120)], options: { videoFormat: 'reel' } },
        FACEBOOK_LIMITS,
      ),
    ).toEqual([
      { field: 'mediaIds[0]', message: 'Video v cannot be a Facebook Reel: it is 120 s long (Reels: 3 to 90 s)' },
    ]);
  });

  it('a Facebook Reel is vertical 9:16, 3 to 90 s, at least 540 x 960, 24 to 60 fps', () => {
    expect(reelMisfits(video('v', 1080, 1920, 30))).toEqual([]);
    expect(reelMisfits(video('v', 540, 960, 3))).toEqual([]);
    expect(reelMisfits(video('v', 288, 512, 10))).toEqual(['it is 288 x 512 (Reels: at least 540 x 960)']);
    expect(reelMisfits(video('v', 1920, 1080, 10))).toEqual(['it is 1920 x 1080 (Reels: 9:16)']);
    expect(reelMisfits(video('v', 1080, 1920, 91, { frameRate: 120 }))).toEqual([
      'it is 91 s long (Reels: 3 to 90 s)',
      'it has 120 frames per second (Reels: 24 to 60)',
    ]);
  });

  it('asks the media module for MP4 or MOV with the index first: a WebM is converted, never sent', () => {
    const req = metaVideoRequirements('Threads', THREADS_LIMITS.video!);
    expect(req).toEqual(
      expect.objectContaining({
        label: 'Threads',
        mimeTypes: ['video/mp4', 'video/quicktime'],
        videoCodecs: ['h264', 'hevc'],
        audioCodecs: ['aac'],
        faststart: true,
        maxDurationSeconds: 300,
      }),
    );
  });
});
