import { OutboundHttp } from '../../common/http/outbound-http';
import { InvalidCredentialsError } from '../provider.errors';
import type { MediaDescriptor } from '../social-provider.interface';
import { MASTODON_DEFAULT_LIMITS, limitsFromInstance } from './mastodon.limits';
import { parseMastodonCredentials } from './mastodon.credentials';
import { MastodonProvider } from './mastodon.provider';

const png = (size: number, id = 'm1'): MediaDescriptor => ({
  id,
  mimeType: 'image/png',
  size,
  width: 10,
  height: 10,
  filename: 'a.png',
});

describe('MastodonProvider.validate', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new MastodonProvider(http);
  const limits = { ...MASTODON_DEFAULT_LIMITS, maxCharacters: 20 };

  afterAll(() => http.close());

  it('accepts a post within limits, links counting 23', () => {
    expect(provider.validate({ content: 'hello', media: [] }, limits)).toEqual([]);
    expect(provider.validate({ content: '', media: [png(10)] }, limits)).toEqual([]);
    expect(
      provider.validate(
        { content: `https://example.com/${'x'.repeat(50)}`, media: [] },
        { ...limits, maxCharacters: 23 },
      ),
    ).toEqual([]);
  });

  it('reports empty posts, long text, too many, unsupported and oversized media', () => {
    const problems = provider.validate(
      {
        content: 'x'.repeat(21),
        media: [
          png(10, 'a'),
          png(10, 'b'),
          png(10, 'c'),
          png(10, 'd'),
          { ...png(10, 'e'), mimeType: 'application/pdf' },
        ],
      },
      { ...limits, maxImageBytes: 5 },
    );
    expect(problems.filter((p) => p.field === 'content')).toHaveLength(1);
    expect(problems.find((p) => p.field === 'content')?.message).toContain('21');
    expect(problems.filter((p) => p.field === 'mediaIds').length).toBeGreaterThanOrEqual(3);
    expect(provider.validate({ content: '   ', media: [] }, limits)).toEqual([
      { field: 'content', message: expect.stringContaining('empty') },
    ]);
  });
});

describe('parseMastodonCredentials', () => {
  it('normalizes the instance URL to its origin', () => {
    expect(parseMastodonCredentials({ instanceUrl: 'https://mastodon.social/', accessToken: ' t ' })).toEqual({
      instanceUrl: 'https://mastodon.social',
      accessToken: 't',
    });
  });

  it.each([
    null,
    'token',
    {},
    { instanceUrl: 'https://m.example' },
    { instanceUrl: '', accessToken: 't' },
    { instanceUrl: 'ftp://m.example', accessToken: 't' },
    // The API's schema needs the scheme, and the adapter parses with the same schema.
    { instanceUrl: 'fosstodon.org', accessToken: 't' },
    { instanceUrl: 'https://user:pw@m.example', accessToken: 't' },
    { instanceUrl: 'https://m.example', accessToken: 'a b' },
  ])('refuses %j', (raw) => {
    expect(() => parseMastodonCredentials(raw)).toThrow(InvalidCredentialsError);
  });

  it('never echoes the token in messages', () => {
    try {
      parseMastodonCredentials({ instanceUrl: 'https://m.example', accessToken: 'secret token' });
    } catch (err) {
      expect((err as Error).message).not.toContain('secret');
    }
  });
});

describe('limitsFromInstance', () => {
  it('reads configuration: image types with their size limit, and the video types and limits of the instance', () => {
    expect(
      limitsFromInstance({
        configuration: {
          statuses: { max_characters: 1000, max_media_attachments: 6 },
          media_attachments: {
            image_size_limit: 1024,
            supported_mime_types: ['image/png', 'video/mp4', 'audio/mpeg'],
            video_size_limit: 40 * 1024 * 1024,
            video_frame_rate_limit: 30,
            video_matrix_limit: 2_304_000,
          },
        },
      }),
    ).toEqual({
      maxCharacters: 1000,
      maxMedia: 6,
      maxImageBytes: 1024,
      supportedMimeTypes: ['image/png', 'video/mp4'],
      video: {
        maxBytes: 40 * 1024 * 1024,
        minDurationSeconds: 0,
        maxDurationSeconds: 24 * 60 * 60,
        mimeTypes: ['video/mp4'],
        maxPerPost: 1,
        maxFrameRate: 30,
        maxPixels: 2_304_000,
        mixWithImages: false,
      },
      threads: true,
      firstComment: true,
    });
  });

  it('says no video when the instance lists none of the video types', () => {
    const limits = limitsFromInstance({
      configuration: { media_attachments: { supported_mime_types: ['image/png'] } },
    });
    expect(limits.video).toBeNull();
    expect(limits.supportedMimeTypes).toEqual(['image/png']);
  });

  it("falls back to defaults: the current servers' 120 fps and 8,294,400 pixels (3840 x 2160)", () => {
    expect(limitsFromInstance(undefined)).toEqual(MASTODON_DEFAULT_LIMITS);
    expect(MASTODON_DEFAULT_LIMITS.video).toMatchObject({ maxFrameRate: 120, maxPixels: 8_294_400 });
    expect(
      limitsFromInstance({ configuration: { media_attachments: { supported_mime_types: ['video/webm'] } } }).video,
    ).toMatchObject({ maxFrameRate: 120, maxPixels: 8_294_400 });
    expect(limitsFromInstance({ configuration: { statuses: { max_characters: 'x' } } }).maxCharacters).toBe(500);
  });
});
