import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { makePng } from '../factories/png.factory';
import { MediaClient, chunkForm, sha256, tempMediaDir } from '../media/media-support';
import { TestApp } from '../support/test-app';

/**
 * The chunk route answers some requests before it has read their body (an unknown upload, one already
 * finalized, an index past the end). The answer must reach the client while it is still sending a
 * multi-megabyte chunk: Node's fetch (undici) fails the whole request (EPIPE, UND_ERR_SOCKET) when the
 * server closes the connection under it, so the service reads and drops the rest of the body first.
 */
describe('an early answer to a large chunk reaches the client', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let a: MediaClient;
  const big = randomBytes(5 * 1024 * 1024); // the default MEDIA_CHUNK_BYTES
  const TRIES = 10;

  beforeAll(async () => {
    t = await TestApp.start({ env: { MEDIA_DIR: media.dir } });
    a = new MediaClient(t, (await t.createWorkspace('early-answers')).key);
  });
  afterAll(async () => {
    await t?.close();
    media.cleanup();
  });

  /**
   * The multipart body of chunk `index` of `mediaId` holding `big`, as a stream that sends it in 256 KiB
   * pieces a few milliseconds apart (a client on a slower link): still sending when the answer comes.
   */
  function pacedForm(mediaId: string, index: number): { body: ReadableStream<Uint8Array>; type: string } {
    const boundary = `----early${randomBytes(8).toString('hex')}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="mediaId"\r\n\r\n${mediaId}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="chunkIndex"\r\n\r\n${index}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="chunk"; filename="chunk.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const pieces = [head];
    for (let at = 0; at < big.length; at += 256 * 1024) pieces.push(big.subarray(at, at + 256 * 1024));
    pieces.push(Buffer.from(`\r\n--${boundary}--\r\n`));
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = pieces.shift();
        if (!next) return controller.close();
        await sleep(5);
        controller.enqueue(new Uint8Array(next));
      },
    });
    return { body, type: `multipart/form-data; boundary=${boundary}` };
  }

  /** Sends `big` as chunk `index` of `mediaId` with Node's fetch; returns status and JSON, or the fetch error. */
  async function send(
    mediaId: string,
    index: number,
    paced: boolean,
  ): Promise<{ status: number; body: unknown } | { failed: string }> {
    try {
      const stream = paced ? pacedForm(mediaId, index) : undefined;
      const res = await fetch(`${t.baseUrl}/api/media/upload/file`, {
        method: 'POST',
        headers: { 'x-api-key': a.key, ...(stream ? { 'content-type': stream.type } : {}) },
        body: stream ? stream.body : chunkForm(mediaId, index, big),
        signal: AbortSignal.timeout(30_000),
        ...(stream ? { duplex: 'half' } : {}),
      });
      return { status: res.status, body: await res.json() };
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      return { failed: `${(err as Error).message}: ${cause?.code ?? cause?.message ?? ''}` };
    }
  }

  const expectAnswers = async (mediaId: string, index: number, status: number, error: string) => {
    for (const paced of [false, true]) {
      for (let i = 0; i < TRIES; i++) {
        const got = await send(mediaId, index, paced);
        expect({ paced, try: i, got }).toMatchObject({
          paced,
          try: i,
          got: { status, body: { error, message: expect.any(String) } },
        });
      }
    }
  };

  it('answers 404 for an unknown upload, every time', async () => {
    await expectAnswers(randomUUID(), 0, 404, 'NOT_FOUND');
  });

  it('answers 409 for an upload already finalized, every time', async () => {
    const png = makePng(8, 8);
    const init = await a.initialize({
      filename: 'a.png',
      mimeType: 'image/png',
      size: png.length,
      sha256: sha256(png),
    });
    const id = init.body.id as string;
    expect((await a.chunk(id, 0, png)).status).toBe(200);
    expect((await a.finalize(id)).status).toBe(200);
    await expectAnswers(id, 0, 409, 'CONFLICT');
  });

  it('answers 400 for an index past the end, and the connection keeps serving', async () => {
    const init = await a.initialize({ filename: 'b.bin.png', mimeType: 'image/png', size: 1000 });
    await expectAnswers(init.body.id as string, 7, 400, 'VALIDATION_ERROR');
    expect((await t.request('GET', '/api/health/live')).status).toBe(200);
  });
});
