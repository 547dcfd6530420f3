import { OutboundHttp } from '../../common/http/outbound-http';
import type { MediaDescriptor } from '../social-provider.interface';
import { X_LIMITS, X_MAX_ALT_TEXT } from './x.limits';
import { XProvider } from './x.provider';

const image = (altText: string | null): MediaDescriptor => ({
  id: 'm1',
  mimeType: 'image/png',
  size: 100,
  width: 10,
  height: 10,
  filename: 'a.png',
  altText,
});

describe('XProvider.validate', () => {
  const http = new OutboundHttp({ allowPrivate: true });
  const x = new XProvider(http);
  afterAll(() => http.close());

  it('accepts alt text up to 1000 characters (counted as code points) and names media whose alt text is longer', () => {
    expect(x.validate({ content: 'hi', media: [image('a'.repeat(X_MAX_ALT_TEXT))] }, X_LIMITS)).toEqual([]);
    expect(x.validate({ content: 'hi', media: [image('😀'.repeat(X_MAX_ALT_TEXT))] }, X_LIMITS)).toEqual([]);
    expect(x.validate({ content: 'hi', media: [image(null)] }, X_LIMITS)).toEqual([]);
    expect(x.validate({ content: 'hi', media: [image('a'.repeat(X_MAX_ALT_TEXT + 1))] }, X_LIMITS)).toEqual([
      { field: 'mediaIds', message: 'The alt text of media m1 has 1001 characters; X allows 1000' },
    ]);
  });
});

describe('XProvider.validate (video)', () => {
  const http = new OutboundHttp({ allowPrivate: true });
  const x = new XProvider(http);
  afterAll(() => http.close());
  const video = (over: Partial<MediaDescriptor> = {}): MediaDescriptor => ({
    id: 'v1',
    mimeType: 'video/mp4',
    size: 10 * 1024 * 1024,
    width: 1280,
    height: 720,
    filename: 'v.mp4',
    durationMs: 30_000,
    frameRate: 30,
    videoCodec: 'h264',
    audioCodec: 'aac',
    ...over,
  });

  it('takes one video of up to 140 s and 512 MiB, WebM and HEVC too (converted before the upload)', () => {
    expect(x.validate({ content: 'hi', media: [video()] }, X_LIMITS)).toEqual([]);
    expect(
      x.validate({ content: 'hi', media: [video({ mimeType: 'video/webm', videoCodec: 'vp9' })] }, X_LIMITS),
    ).toEqual([]);
    expect(x.validate({ content: 'hi', media: [video({ durationMs: 141_000 })] }, X_LIMITS)).toEqual([
      { field: 'mediaIds[0]', message: 'Video v1 is 141 s long; X takes at most 140 s' },
    ]);
    expect(x.validate({ content: 'hi', media: [video({ size: 600 * 1024 * 1024 })] }, X_LIMITS)).toEqual([
      { field: 'mediaIds[0]', message: 'Video v1 is 600 MiB; X takes videos of at most 512 MiB' },
    ]);
  });

  it('refuses a second video and images beside a video', () => {
    const problems = x.validate({ content: 'hi', media: [video(), image(null), video({ id: 'v2' })] }, X_LIMITS);
    expect(problems).toEqual(
      expect.arrayContaining([
        { field: 'mediaIds', message: 'X takes at most 1 video per post (got 2)' },
        { field: 'mediaIds', message: 'X does not take images and video in one post' },
      ]),
    );
  });
});
