import { OutboundHttp } from '../../common/http/outbound-http';
import { InvalidCredentialsError } from '../provider.errors';
import { parseBlueskyLogin, parseBlueskyStoredCredentials } from './bluesky.credentials';
import { BLUESKY_LIMITS } from './bluesky.limits';
import { BlueskyProvider } from './bluesky.provider';

describe('BlueskyProvider.validate', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new BlueskyProvider(http);

  afterAll(() => http.close());

  it('counts graphemes, not code units', () => {
    expect(provider.validate({ content: '🦋'.repeat(300), media: [] }, BLUESKY_LIMITS)).toEqual([]);
    expect(provider.validate({ content: '👍🏽'.repeat(300), media: [] }, BLUESKY_LIMITS)).toEqual([]);
    const problems = provider.validate({ content: 'é'.repeat(301), media: [] }, BLUESKY_LIMITS);
    expect(problems).toEqual([{ field: 'content', message: expect.stringContaining('301') }]);
  });

  it('reports the 3000-byte text limit', () => {
    const problems = provider.validate({ content: '👨‍👩‍👧‍👦'.repeat(200), media: [] }, BLUESKY_LIMITS);
    expect(problems.map((p) => p.message).join()).toContain('bytes');
  });

  it('checks media count, type and size', () => {
    const image = { id: 'i', mimeType: 'image/png', size: 10, width: null, height: null, filename: 'i.png' };
    expect(provider.validate({ content: '', media: [image] }, BLUESKY_LIMITS)).toEqual([]);
    const problems = provider.validate(
      {
        content: 'x',
        media: [image, image, image, { ...image, mimeType: 'image/heic' }, { ...image, size: 2_000_001 }],
      },
      BLUESKY_LIMITS,
    );
    expect(problems.every((p) => p.field === 'mediaIds')).toBe(true);
    expect(problems).toHaveLength(3);
  });
});

describe('Bluesky credentials', () => {
  it('defaults the service URL and strips a leading @', () => {
    expect(parseBlueskyLogin({ identifier: '@alice.test', appPassword: 'p' })).toEqual({
      identifier: 'alice.test',
      appPassword: 'p',
      serviceUrl: 'https://bsky.social',
    });
  });

  it.each([null, {}, { identifier: 'a' }, { identifier: 'a', appPassword: 'p', serviceUrl: 'file:///x' }])(
    'refuses %j',
    (raw) => expect(() => parseBlueskyLogin(raw)).toThrow(InvalidCredentialsError),
  );

  it('needs a DID in stored credentials, tokens optional', () => {
    expect(() => parseBlueskyStoredCredentials({ identifier: 'a', appPassword: 'p' })).toThrow(InvalidCredentialsError);
    expect(parseBlueskyStoredCredentials({ identifier: 'a', appPassword: 'p', did: 'did:plc:x' })).toMatchObject({
      did: 'did:plc:x',
      handle: 'a',
      accessJwt: '',
      refreshJwt: '',
    });
  });
});

describe('BlueskyProvider.validate (video)', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new BlueskyProvider(http);
  afterAll(() => http.close());
  const video = (durationMs: number, size = 5_000_000) => ({
    id: 'v',
    mimeType: 'video/webm',
    size,
    width: 1080,
    height: 1920,
    filename: 'v.webm',
    durationMs,
  });

  it('takes one video of up to 3 minutes and 300,000,000 bytes (the lexicon), naming the limit otherwise', () => {
    expect(provider.validate({ content: 'x', media: [video(179_000)] }, BLUESKY_LIMITS)).toEqual([]);
    // 120 MB: over the 100 MB Bluesky took until August 2026, within the lexicon's 300,000,000 bytes.
    expect(provider.validate({ content: 'x', media: [video(179_000, 120_000_000)] }, BLUESKY_LIMITS)).toEqual([]);
    expect(provider.validate({ content: 'x', media: [video(181_000, 300_000_001)] }, BLUESKY_LIMITS)).toEqual([
      { field: 'mediaIds[0]', message: 'Video v is 286.1 MiB; Bluesky takes videos of at most 286.1 MiB' },
      { field: 'mediaIds[0]', message: 'Video v is 181 s long; Bluesky takes at most 180 s' },
    ]);
  });

  it('takes images of up to 2,000,000 bytes (app.bsky.embed.images), not only 1 MB', () => {
    const image = (size: number) => ({
      id: 'i',
      mimeType: 'image/png',
      size,
      width: 10,
      height: 10,
      filename: 'i.png',
    });
    expect(provider.validate({ content: 'x', media: [image(1_500_000)] }, BLUESKY_LIMITS)).toEqual([]);
    expect(provider.validate({ content: 'x', media: [image(2_000_001)] }, BLUESKY_LIMITS)).toEqual([
      { field: 'mediaIds', message: expect.stringContaining('Bluesky accepts at most 1.9 MiB') },
    ]);
  });
});
