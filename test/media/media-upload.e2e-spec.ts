import { existsSync, readFileSync } from 'node:fs';
import { makePng } from '../factories/png.factory';
import { MediaService } from '../../src/media/media.service';
import { Post } from '../../src/posts/post.entity';
import { TestApp } from '../support/test-app';
import { MediaClient, hasBytes, objectPath, partsDir, sha256, tempMediaDir, withoutSignedUrls } from './media-support';

const MiB = 1024 * 1024;

/** Default configuration: 5 MiB chunks, 512 MiB limit. */
describe('media upload (default 5 MiB chunks)', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let a: MediaClient;
  let aWorkspaceId: string;
  let b: MediaClient;
  let png: Buffer;

  beforeAll(async () => {
    png = makePng(2000, 2000, { noise: true });
    t = await TestApp.start({ env: { MEDIA_DIR: media.dir } });
    const wsA = await t.createWorkspace('media-a');
    aWorkspaceId = wsA.workspaceId;
    a = new MediaClient(t, wsA.key);
    b = new MediaClient(t, (await t.createWorkspace('media-b')).key);
  });
  afterAll(async () => {
    await t.close();
    media.cleanup();
  });

  let readyId: string;

  it('uploads a 12 MB PNG in shuffled chunks with one re-sent and finalizes it ready with size, sha256 and dimensions', async () => {
    expect(png.length).toBeGreaterThan(12_000_000);
    const init = await a.initialize({
      filename: 'noise.png',
      mimeType: 'image/png',
      size: png.length,
      sha256: sha256(png),
    });
    expect(init.status).toBe(201);
    expect(init.body).toEqual({
      id: expect.any(String),
      status: 'uploading',
      filename: 'noise.png',
      mimeType: 'image/png',
      size: png.length,
      sha256: sha256(png),
      durationMs: null,
      frameRate: null,
      videoCodec: null,
      audioCodec: null,
      bitrate: null,
      contentUrl: null,
      posterUrl: null,
      width: null,
      height: null,
      altText: null,
      chunkSize: 5 * MiB,
      totalChunks: 3,
      receivedChunks: [],
      expiresAt: expect.any(String),
      error: null,
      createdAt: expect.any(String),
    });
    const { id, chunkSize } = init.body;
    expect(Date.parse(init.body.expiresAt) - Date.parse(init.body.createdAt)).toBe(24 * 3600 * 1000);

    const c2 = await a.chunk(id, 2, MediaClient.slice(png, chunkSize, 2));
    expect(c2.status).toBe(200);
    expect(c2.body).toEqual({ id, chunkIndex: 2, receivedChunks: [2], totalChunks: 3 });
    const c0 = await a.chunk(id, 0, MediaClient.slice(png, chunkSize, 0), {
      sha256: sha256(MediaClient.slice(png, chunkSize, 0)),
    });
    expect(c0.body.receivedChunks).toEqual([0, 2]);
    // Chunk 1 first with wrong bytes (right size), then re-sent with the right ones: the second copy wins.
    expect((await a.chunk(id, 1, Buffer.alloc(chunkSize, 7))).status).toBe(200);
    const c1 = await a.chunk(id, 1, MediaClient.slice(png, chunkSize, 1));
    expect(c1.body).toEqual({ id, chunkIndex: 1, receivedChunks: [0, 1, 2], totalChunks: 3 });

    const resume = await a.get(id);
    expect(resume.body.status).toBe('uploading');
    expect(resume.body.receivedChunks).toEqual([0, 1, 2]);

    const fin = await a.finalize(id);
    expect(fin.status).toBe(200);
    expect(fin.body).toEqual(
      expect.objectContaining({
        id,
        status: 'ready',
        size: png.length,
        sha256: sha256(png),
        width: 2000,
        height: 2000,
        expiresAt: null,
      }),
    );
    expect(sha256(readFileSync(objectPath(media.dir, id)))).toBe(sha256(png));
    expect(hasBytes(media.dir, id) && !existsSync(partsDir(media.dir, id))).toBe(true);

    // Finalizing again answers the same item; GET agrees.
    const again = await a.finalize(id);
    expect(again.status).toBe(200);
    expect(withoutSignedUrls(again.body)).toEqual(withoutSignedUrls(fin.body));
    expect(withoutSignedUrls((await a.get(id)).body)).toEqual(withoutSignedUrls(fin.body));
    readyId = id;
  });

  it('exposes the final bytes and the entities to other modules', async () => {
    const svc = t.app.get(MediaService);
    const chunks: Buffer[] = [];
    for await (const chunk of svc.open(readyId)) chunks.push(chunk as Buffer);
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(png));
    const [workspaceA] = await t.dataSource.query('SELECT id FROM workspaces WHERE name = $1', ['media-a']);
    const [workspaceB] = await t.dataSource.query('SELECT id FROM workspaces WHERE name = $1', ['media-b']);
    const found = await svc.findMany(workspaceA.id, [readyId, '00000000-0000-4000-8000-000000000000', 'nope']);
    expect(found.map((m) => [m.id, m.status, m.size])).toEqual([[readyId, 'ready', png.length]]);
    expect(await svc.findMany(workspaceB.id, [readyId])).toEqual([]);
  });

  it('refuses chunks of a ready item with 409', async () => {
    const res = await a.chunk(readyId, 0, png.subarray(0, 5 * MiB));
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('CONFLICT');
  });

  it('answers 413 for a declared size over the limit and 415 for an unsupported type', async () => {
    const big = await a.initialize({ filename: 'huge.png', mimeType: 'image/png', size: 512 * MiB + 1 });
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ error: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('536870912') });
    expect((await a.initialize({ filename: 'max.png', mimeType: 'image/png', size: 512 * MiB })).status).toBe(201);
    const text = await a.initialize({ filename: 'notes.txt', mimeType: 'text/plain', size: 10 });
    expect(text.status).toBe(415);
    expect(text.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
    const invalid = await a.initialize({ filename: '', mimeType: 'image/png', size: 0, extra: 1 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['extra', 'filename', 'size']);
  });

  it('answers 415 when text is declared as image/png, already at chunk 0, and keeps nothing of it', async () => {
    const text = Buffer.from(
      'Just some plain text pretending to be a PNG image, long enough to be sniffed.\n'.repeat(4),
    );
    const init = await a.initialize({ filename: 'fake.png', mimeType: 'image/png', size: text.length });
    const res = await a.chunk(init.body.id, 0, text);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('image/png') });
    expect((await a.get(init.body.id)).body.receivedChunks).toEqual([]);
    const fin = await a.finalize(init.body.id);
    expect(fin.status).toBe(409);
    expect(fin.body.message).toMatch(/missing chunk 0\b/);
  });

  it('answers 415 for a chunk upload that is not multipart, and for multipart sent to a JSON route', async () => {
    const json = await t.request('POST', '/api/media/upload/file', {
      key: a.key,
      body: { mediaId: readyId, chunkIndex: 0 },
    });
    expect(json.status).toBe(415);
    expect(json.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
    const form = new FormData();
    form.append('filename', 'x.png');
    const wrongRoute = await t.request('POST', '/api/media/upload/initialize', { key: a.key, rawBody: form });
    expect(wrongRoute.status).toBe(415);
    expect(wrongRoute.body).toEqual({
      error: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Unsupported request content type: send the body as application/json',
    });
    const noKey = await t.request('POST', '/api/media/upload/file', { rawBody: form });
    expect(noKey.status).toBe(401);
  });

  it('validates the multipart fields', async () => {
    const init = await a.initialize({ filename: 'v.png', mimeType: 'image/png', size: 100 });
    const id = init.body.id;
    const small = png.subarray(0, 100);
    const outOfRange = await a.chunk(id, 1, small);
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.details).toEqual([{ field: 'chunkIndex', message: 'must be below totalChunks (1)' }]);
    expect((await a.chunk(id, '-1', small)).status).toBe(400);
    expect((await a.chunk(id, '1.5', small)).status).toBe(400);
    expect((await a.chunk('not-a-uuid', 0, small)).status).toBe(400);
    const noFile = new FormData();
    noFile.append('mediaId', id);
    noFile.append('chunkIndex', '0');
    const missing = await t.request('POST', '/api/media/upload/file', { key: a.key, rawBody: noFile });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/chunk/);
    const ok = await a.chunk(id, 0, small);
    expect(ok.body).toEqual({ id, chunkIndex: 0, receivedChunks: [0], totalChunks: 1 });
  });

  it('gives another workspace 404 on every route and leaves the item alone', async () => {
    const notFound = { error: 'NOT_FOUND', message: 'Media not found' };
    const init = await a.initialize({ filename: 'mine.png', mimeType: 'image/png', size: 100 });
    const id = init.body.id;
    expect((await b.get(readyId)).body).toEqual(notFound);
    expect((await b.get(id)).status).toBe(404);
    const chunk = await b.chunk(id, 0, png.subarray(0, 100));
    expect(chunk.status).toBe(404);
    expect(chunk.body).toEqual(notFound);
    expect((await b.finalize(id)).body).toEqual(notFound);
    expect((await b.finalize(readyId)).status).toBe(404);
    const patched = await t.request('PATCH', `/api/media/${readyId}`, { key: b.key, body: { altText: 'theirs' } });
    expect(patched.status).toBe(404);
    expect(patched.body).toEqual(notFound);
    const del = await b.delete(readyId);
    expect(del.status).toBe(404);
    expect(del.body).toEqual(notFound);
    expect((await a.get(readyId)).body).toEqual(expect.objectContaining({ status: 'ready', altText: null }));
    expect((await a.get(id)).body.receivedChunks).toEqual([]);
    expect(hasBytes(media.dir, readyId)).toBe(true);
  });

  it('refuses to delete media a scheduled or publishing post uses (409), then deletes it and its bytes', async () => {
    // A real post row in the posts table, as PostsService writes it; only scheduled/publishing block.
    const posts = t.dataSource.getRepository(Post);
    const post = await posts.save(
      posts.create({
        workspaceId: aWorkspaceId,
        content: 'uses it',
        status: 'scheduled',
        mediaIds: [readyId],
        timelineAt: new Date(),
      }),
    );
    const inUse = await a.delete(readyId);
    expect(inUse.status).toBe(409);
    expect(inUse.body).toEqual({ error: 'CONFLICT', message: 'Media is used by a scheduled or publishing post' });
    expect(hasBytes(media.dir, readyId)).toBe(true);
    await posts.update({ id: post.id }, { status: 'published' });
    const del = await a.delete(readyId);
    expect(del.status).toBe(204);
    expect(hasBytes(media.dir, readyId)).toBe(false);
    expect((await a.get(readyId)).status).toBe(404);
    expect((await a.delete(readyId)).status).toBe(404);
  });

  it('deletes an unfinished upload with its parts', async () => {
    const init = await a.initialize({ filename: 'part.png', mimeType: 'image/png', size: 6 * MiB });
    expect((await a.chunk(init.body.id, 0, png.subarray(0, 5 * MiB))).status).toBe(200);
    expect(hasBytes(media.dir, init.body.id)).toBe(true);
    expect((await a.delete(init.body.id)).status).toBe(204);
    expect(hasBytes(media.dir, init.body.id)).toBe(false);
  });
});
