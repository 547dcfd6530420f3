import { OutboundHttp } from '../../common/http/outbound-http';
import { ContentRejectedError, CredentialsRevokedError, TransientProviderError } from '../provider.errors';
import type { MediaDescriptor } from '../social-provider.interface';
import { mapPinterestFailure, pinterestErrorText } from './pinterest-api.client';
import { parsePinterestCredentials } from './pinterest.credentials';
import { compileOptionsSchema, optionsProblems } from '../options-schema';
import { PINTEREST_LIMITS } from './pinterest.limits';
import { PINTEREST_OPTIONS_SCHEMA } from './pinterest.options';
import { PinterestProvider } from './pinterest.provider';

const image = (overrides: Partial<MediaDescriptor> = {}): MediaDescriptor => ({
  id: 'm1',
  mimeType: 'image/png',
  size: 100,
  width: 100,
  height: 100,
  filename: 'a.png',
  ...overrides,
});

describe('PinterestProvider.validate', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new PinterestProvider(http);
  afterAll(() => http.close());

  it('needs exactly one JPEG or PNG image', () => {
    expect(provider.validate({ content: 'a pin', media: [image()] }, PINTEREST_LIMITS)).toEqual([]);
    expect(provider.validate({ content: 'a pin', media: [] }, PINTEREST_LIMITS)).toEqual([
      { field: 'mediaIds', message: expect.stringContaining('with an image or a video') },
    ]);
    expect(
      provider
        .validate({ content: 'a pin', media: [image(), image({ id: 'm2' })] }, PINTEREST_LIMITS)
        .map((p) => p.field),
    ).toEqual(['mediaIds']);
    expect(
      provider.validate({ content: 'a pin', media: [image({ mimeType: 'image/gif' })] }, PINTEREST_LIMITS)[0].message,
    ).toContain('image/gif');
  });

  it('allows 800 characters of description and 500 of alt text', () => {
    expect(provider.validate({ content: 'é'.repeat(800), media: [image()] }, PINTEREST_LIMITS)).toEqual([]);
    const problems = provider.validate(
      { content: 'x'.repeat(801), media: [image({ altText: 'a'.repeat(501) })] },
      PINTEREST_LIMITS,
    );
    expect(problems.map((p) => p.field)).toEqual(['content', 'mediaIds']);
    expect(problems[0].message).toContain('allows 800');
  });
});

describe('Pinterest failures', () => {
  const res = (status: number, data: unknown, headers: Record<string, string> = {}) => ({ status, data, headers });

  it("reads Pinterest's {code, message} errors", () => {
    expect(pinterestErrorText({ code: 40, message: 'Board not found.' })).toBe('Board not found. (code 40)');
    expect(pinterestErrorText(undefined)).toBe('');
  });

  it('maps 401 to revoked, 429 to a retry after Retry-After, other 4xx to a refusal', () => {
    expect(mapPinterestFailure(res(401, { code: 2, message: 'Authentication failed.' }), 'content')).toBeInstanceOf(
      CredentialsRevokedError,
    );
    const limited = mapPinterestFailure(res(429, { code: 8, message: 'rate' }, { 'retry-after': '3' }), 'content');
    expect(limited).toBeInstanceOf(TransientProviderError);
    expect((limited as TransientProviderError).retryAfterSeconds).toBe(3);
    expect((limited as TransientProviderError).code).toBe('PROVIDER_RATE_LIMITED');
    expect(mapPinterestFailure(res(404, { code: 40, message: 'Board not found.' }), 'content')).toBeInstanceOf(
      ContentRejectedError,
    );
  });
});

describe('Pinterest credentials', () => {
  it('reads the board and username, and refuses a board id that is not numeric', () => {
    expect(
      parsePinterestCredentials({
        accessToken: 'a',
        apiBaseUrl: 'https://api.pinterest.com/',
        boardId: '549755885175',
        username: 'pinner',
      }),
    ).toEqual({
      accessToken: 'a',
      apiBaseUrl: 'https://api.pinterest.com',
      boardId: '549755885175',
      username: 'pinner',
    });
    expect(() =>
      parsePinterestCredentials({ accessToken: 'a', apiBaseUrl: 'https://api.pinterest.com', boardId: '../x' }),
    ).toThrow(/board/);
  });
});

describe('Pinterest options', () => {
  const validate = compileOptionsSchema('pinterest', PINTEREST_OPTIONS_SCHEMA);
  const problems = (options: unknown) => optionsProblems(validate, options);

  it('takes a board, a section, a title, a link and a dominant color, none required', () => {
    expect(problems({})).toEqual([]);
    expect(
      problems({
        boardId: '549755885176',
        boardSectionId: '5000000000001',
        title: 'Soup',
        link: 'https://example.com/soup',
        dominantColor: '#6E7874',
      }),
    ).toEqual([]);
  });

  it('names each field it refuses', () => {
    expect(
      problems({
        boardId: 'recipes',
        title: 't'.repeat(101),
        link: 'ftp://example.com',
        dominantColor: 'red',
        altText: 'x',
      }).map((p) => p.field),
    ).toEqual(expect.arrayContaining(['boardId', 'title', 'link', 'dominantColor', 'altText']));
    expect(problems({ title: 't'.repeat(101) })).toEqual([
      { field: 'title', message: 'must be at most 100 characters long' },
    ]);
  });

  it('lists video within Pinterest limits: MP4 and MOV, 4 s to 15 min, alone in the pin', () => {
    expect(PINTEREST_LIMITS.video).toMatchObject({
      maxBytes: 2 * 1024 ** 3,
      minDurationSeconds: 4,
      maxDurationSeconds: 900,
      mimeTypes: ['video/mp4', 'video/quicktime'],
      maxPerPost: 1,
    });
    const http = new OutboundHttp({ allowPrivate: false });
    try {
      const provider = new PinterestProvider(http);
      const video = image({ id: 'v1', mimeType: 'video/mp4', filename: 'a.mp4', durationMs: 2000 });
      expect(provider.validate({ content: 'a video pin', media: [video] }, PINTEREST_LIMITS)).toEqual([
        expect.objectContaining({ message: expect.stringContaining('at least 4') }),
      ]);
      expect(
        provider.validate({ content: 'a video pin', media: [{ ...video, durationMs: 8000 }] }, PINTEREST_LIMITS),
      ).toEqual([]);
    } finally {
      void http.close();
    }
  });
});
