import { makePng } from '../factories/png.factory';
import { FileServer } from '../support/file-server';
import { TestApp } from '../support/test-app';
import { hasBytes, sha256, tempMediaDir } from './media-support';

describe('POST /media/upload/url', () => {
  const media = tempMediaDir();
  const files = new FileServer();
  let t: TestApp;
  let key: string;
  let png: Buffer;

  beforeAll(async () => {
    png = makePng(640, 480, { noise: true });
    await files.start();
    // 1 MiB limit and 256 KiB chunks: the PNG (~900 KB) spans several chunks.
    t = await TestApp.start({
      env: { MEDIA_DIR: media.dir, MEDIA_MAX_BYTES: String(1024 * 1024), MEDIA_CHUNK_BYTES: String(256 * 1024) },
    });
    key = (await t.createWorkspace('media-url')).key;
  });
  afterAll(async () => {
    await t?.close();
    await files.stop();
    media.cleanup();
  });

  const upload = (body: Record<string, unknown>) => t.request('POST', '/api/media/upload/url', { key, body });

  it('downloads an image, checks it like a chunked upload and answers with the ready item', async () => {
    const url = files.put('/images/sunset%20view.png', { type: 'image/png', body: png });
    const res = await upload({ url });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(
      expect.objectContaining({
        status: 'ready',
        filename: 'sunset view.png',
        mimeType: 'image/png',
        size: png.length,
        sha256: sha256(png),
        width: 640,
        height: 480,
      }),
    );
    expect(hasBytes(media.dir, res.body.id)).toBe(true);
    const got = await t.request('GET', `/api/media/${res.body.id}`, { key });
    expect(got.body.status).toBe('ready');
  });

  it('streams a download without Content-Length, and takes filename and mimeType from the request', async () => {
    const url = files.put('/blob', { body: png, chunked: true });
    const res = await upload({ url, filename: 'mine.png', mimeType: 'image/png' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(expect.objectContaining({ filename: 'mine.png', size: png.length, status: 'ready' }));
  });

  it('refuses a download over the size limit: by Content-Length at once, by count while streaming', async () => {
    const big = Buffer.concat([png, Buffer.alloc(1024 * 1024)]);
    const declared = await upload({ url: files.put('/big.png', { type: 'image/png', body: big }) });
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ error: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('limit') });
    const streamed = await upload({
      url: files.put('/big-chunked.png', { type: 'image/png', body: big, chunked: true }),
    });
    expect(streamed.status).toBe(413);
    expect(streamed.body.message).toContain('stopped');
    expect(await t.dataSource.query(`SELECT id FROM media WHERE size > 1048576`)).toHaveLength(0);
  });

  it('refuses unsupported types (415), bytes that are not the declared type (415) and broken images (422), leaving no item', async () => {
    const before = (await t.dataSource.query('SELECT count(*)::int AS n FROM media'))[0].n;
    const html = await upload({ url: files.put('/page', { type: 'text/html', body: Buffer.from('<html></html>') }) });
    expect(html.status).toBe(415);
    expect(html.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
    const untyped = await upload({ url: files.put('/untyped', { body: png }) });
    expect(untyped.status).toBe(415);
    expect(untyped.body.message).toContain('Content-Type');
    const liar = await upload({
      url: files.put('/fake.png', { type: 'image/png', body: Buffer.from('GIF89a not really a png at all') }),
    });
    expect(liar.status).toBe(415);
    const broken = Buffer.from(png.subarray(0, 40)); // a PNG header with unreadable dimensions
    broken.fill(0, 16, 24);
    const unreadable = await upload({ url: files.put('/broken.png', { type: 'image/png', body: broken }) });
    expect(unreadable.status).toBe(422);
    expect((await t.dataSource.query('SELECT count(*)::int AS n FROM media'))[0].n).toBe(before);
  });

  it('answers 400 with the reason for error statuses, unreachable hosts and bad URLs', async () => {
    const missing = await upload({ url: `${files.base}/nothing-here.png` });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'url: the server answered HTTP 404',
      details: [{ field: 'url', message: 'the server answered HTTP 404' }],
    });
    const redirect = await upload({ url: files.put('/moved', { status: 302, body: Buffer.alloc(0) }) });
    expect(redirect.status).toBe(400);
    expect(redirect.body.message).toContain('redirects are not followed');
    const closed = await upload({ url: 'http://127.0.0.1:1/x.png' });
    expect(closed.status).toBe(400);
    expect((await upload({ url: 'ftp://example.com/x.png' })).status).toBe(400);
    expect((await upload({ url: 'not a url' })).status).toBe(400);
    expect((await upload({ url: files.put('/empty.png', { type: 'image/png', body: Buffer.alloc(0) }) })).status).toBe(
      400,
    );
  });
});

describe('POST /media/upload/url in production mode (private addresses refused)', () => {
  const media = tempMediaDir();
  const files = new FileServer();
  let t: TestApp;

  beforeAll(async () => {
    await files.start();
    t = await TestApp.start({ env: { MEDIA_DIR: media.dir, OUTBOUND_ALLOW_PRIVATE: 'false' } });
  });
  afterAll(async () => {
    await t?.close();
    await files.stop();
    media.cleanup();
    process.env.OUTBOUND_ALLOW_PRIVATE = 'true';
  });

  it.each([
    ['loopback', () => files.put('/a.png', { type: 'image/png', body: makePng(2, 2) })],
    ['private network', () => 'http://10.0.0.8/a.png'],
    ['link-local metadata', () => 'http://169.254.169.254/latest/meta-data'],
    ['localhost by name', () => `http://localhost:${new URL(files.base).port}/a.png`],
  ])('refuses a %s address with 400 before downloading', async (_what, url) => {
    const { key } = await t.createWorkspace();
    const res = await t.request('POST', '/api/media/upload/url', { key, body: { url: url() } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^url: refused: /),
      details: [{ field: 'url', message: expect.stringContaining('refused') }],
    });
  });
});
