import { randomUUID } from 'node:crypto';
import { SWEEP_IMPORTS_JOB } from '../../src/media/media-import-sweep.job';
import { PeriodicJobs } from '../../src/scheduling/periodic-jobs.service';
import { makePng } from '../factories/png.factory';
import { FileServer } from '../support/file-server';
import { waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { hasBytes, sha256, tempMediaDir } from './media-support';

/**
 * Uploads from a URL that take long: 202 with a `processing` item, a worker downloads it as a job of
 * the media queue, and the item ends `ready` or `failed`, announced by media.ready / media.failed.
 */
describe('POST /media/upload/url for big or slow downloads', () => {
  const media = tempMediaDir();
  const files = new FileServer();
  const receiver = new WebhookReceiver();
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  let png: Buffer;

  beforeAll(async () => {
    png = makePng(640, 480, { noise: true }); // ~900 KB
    await Promise.all([files.start(), receiver.start()]);
    t = await TestApp.start({
      env: {
        MEDIA_DIR: media.dir,
        MEDIA_MAX_BYTES: String(1024 * 1024),
        MEDIA_CHUNK_BYTES: String(256 * 1024),
        // Announced above 200 kB: in the background; not over within a second: in the background.
        MEDIA_URL_ASYNC_BYTES: '200000',
        MEDIA_URL_WAIT_SECONDS: '1',
        MEDIA_URL_SWEEP_SECONDS: '3600',
      },
    });
    ({ key, workspaceId } = await t.createWorkspace('media-url-async'));
    const hook = await t.request('POST', '/api/webhooks', {
      key,
      body: { url: receiver.url('/media'), events: ['media.ready', 'media.failed'] },
    });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([files.stop(), receiver.stop()]);
    media.cleanup();
  });

  const upload = (body: Record<string, unknown>) => t.request('POST', '/api/media/upload/url', { key, body });
  const getMedia = async (id: string) => (await t.request('GET', `/api/media/${id}`, { key })).body;
  const settled = (id: string) =>
    waitFor(
      () => getMedia(id),
      (m) => m.status !== 'processing',
    );
  const eventFor = async (id: string) => {
    await receiver.waitFor(() => receiver.events('/media').some((e) => e.data.id === id), 15_000, `an event of ${id}`);
    return receiver.events('/media').filter((e) => e.data.id === id);
  };

  it('answers 202 for a big file, then the item becomes ready and media.ready reaches the webhook', async () => {
    const url = files.put('/big/sunset.png', { type: 'image/png', body: png });
    const res = await upload({ url });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(
      expect.objectContaining({
        status: 'processing',
        filename: 'sunset.png',
        mimeType: 'image/png',
        size: png.length,
        sha256: null,
        error: null,
      }),
    );
    const ready = await settled(res.body.id);
    expect(ready).toEqual(
      expect.objectContaining({ status: 'ready', size: png.length, sha256: sha256(png), width: 640, height: 480 }),
    );
    expect(hasBytes(media.dir, res.body.id)).toBe(true);
    const events = await eventFor(res.body.id);
    expect(events.map((e) => e.type)).toEqual(['media.ready']);
    expect(events[0]).toEqual(
      expect.objectContaining({ workspaceId, data: expect.objectContaining({ status: 'ready', sha256: sha256(png) }) }),
    );
    // The worker downloaded it again from the start: the request only read the headers.
    expect(files.hits.get('/big/sunset.png')).toBe(2);
  });

  it('answers 202 when a small download is slow, and finishes it in the background', async () => {
    const small = makePng(200, 200, { noise: true });
    const url = files.put('/slow.png', { type: 'image/png', body: small, chunked: true, pieceDelayMs: 1500 });
    expect(small.length).toBeGreaterThan(64 * 1024); // at least two pieces, so the first wait runs out
    const res = await upload({ url });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('processing');
    expect((await settled(res.body.id)).status).toBe('ready');
    expect((await eventFor(res.body.id))[0].type).toBe('media.ready');
  });

  it('fails a big download whose bytes are not the declared type, with the reason and media.failed', async () => {
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(300_000, 1)]);
    const res = await upload({ url: files.put('/big/liar.png', { type: 'image/png', body: gif }) });
    expect(res.status).toBe(202);
    const failed = await settled(res.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('image/png') });
    expect(hasBytes(media.dir, res.body.id)).toBe(false);
    const events = await eventFor(res.body.id);
    expect(events.map((e) => e.type)).toEqual(['media.failed']);
    expect(events[0].data.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('fails a background download that grows past the size limit, stopping it', async () => {
    const big = Buffer.concat([png, Buffer.alloc(400 * 1024)]);
    const url = files.put('/slow-big.png', { type: 'image/png', body: big, chunked: true, pieceDelayMs: 100 });
    const res = await upload({ url });
    expect(res.status).toBe(202);
    const failed = await settled(res.body.id);
    expect(failed.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('stopped') });
    expect((await eventFor(res.body.id))[0].type).toBe('media.failed');
  });

  it('still refuses at once what the answer alone shows: too large, unsupported type, error status', async () => {
    const tooBig = await upload({
      url: files.put('/huge.png', { type: 'image/png', body: Buffer.alloc(2 * 1024 * 1024) }),
    });
    expect(tooBig.status).toBe(413);
    const html = await upload({ url: files.put('/big.html', { type: 'text/html', body: Buffer.alloc(300_000) }) });
    expect(html.status).toBe(415);
    expect((await upload({ url: `${files.base}/missing.png` })).status).toBe(400);
  });

  describe('the sweep (the database is the record, not the queue)', () => {
    const insertProcessing = async (url: string, attempts: number): Promise<string> => {
      const id = randomUUID();
      // As a crash leaves it: processing, its last worker's claim lapsed, its job gone from Redis.
      await t.dataSource.query(
        `INSERT INTO media (id, workspace_id, status, filename, mime_type, size, chunk_size, total_chunks,
                            source_url, import_attempts, import_claimed_until)
         VALUES ($1, $2, 'processing', 'lost.png', 'image/png', 0, 0, 0, $3, $4, now() - interval '1 minute')`,
        [id, workspaceId, url, attempts],
      );
      return id;
    };

    it('hands an item whose worker died to another one, which finishes it', async () => {
      const id = await insertProcessing(files.put('/resumed.png', { type: 'image/png', body: png }), 1);
      expect(await t.app.get(PeriodicJobs).runNow(SWEEP_IMPORTS_JOB)).toEqual({ failed: 0, requeued: 1 });
      const ready = await settled(id);
      expect(ready).toEqual(expect.objectContaining({ status: 'ready', sha256: sha256(png) }));
      expect((await eventFor(id))[0].type).toBe('media.ready');
    });

    it('fails an item whose tries are used up, with media.failed', async () => {
      const id = await insertProcessing(files.put('/given-up.png', { type: 'image/png', body: png }), 3);
      expect(await t.app.get(PeriodicJobs).runNow(SWEEP_IMPORTS_JOB)).toEqual({ failed: 1, requeued: 0 });
      const failed = await getMedia(id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toEqual({ code: 'INTERNAL_ERROR', message: expect.stringContaining('interrupted 3 times') });
      expect((await eventFor(id))[0].type).toBe('media.failed');
      expect(files.hits.get('/given-up.png')).toBeUndefined();
    });
  });
});
