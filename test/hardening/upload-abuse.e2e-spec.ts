import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MediaUploadService } from '../../src/media/media-upload.service';
import { makePng } from '../factories/png.factory';
import { MediaClient, hasBytes, sha256, tempMediaDir } from '../media/media-support';
import { TestApp } from '../support/test-app';

/** Uploads cannot be used to fill the database or the disk, and broken images never become `ready`. */
describe('upload abuse', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let client: MediaClient;
  const CAP = 5;

  beforeAll(async () => {
    t = await TestApp.start({ env: { MEDIA_DIR: media.dir, MEDIA_MAX_PENDING_UPLOADS: String(CAP) } });
    client = new MediaClient(t, (await t.createWorkspace()).key);
  });
  afterAll(async () => {
    await t.close();
    media.cleanup();
  });

  const storedIds = (): string[] => {
    try {
      return readdirSync(join(media.dir, 'parts'));
    } catch {
      return [];
    }
  };

  it('caps pending uploads per workspace with a clear 409, and creates storage only when a chunk arrives', async () => {
    const png = makePng(4, 3);
    const pending: string[] = [];
    for (let i = 0; i < CAP; i++) {
      const res = await client.initialize({ filename: `a${i}.png`, mimeType: 'image/png', size: png.length });
      expect(res.status).toBe(201);
      pending.push(res.body.id);
    }
    expect(storedIds()).toEqual([]);

    const over = await client.initialize({ filename: 'over.png', mimeType: 'image/png', size: png.length });
    expect(over.status).toBe(409);
    expect(over.body).toEqual({ error: 'CONFLICT', message: expect.stringContaining(`${CAP}`) });

    // Another workspace has its own allowance.
    const other = new MediaClient(t, (await t.createWorkspace()).key);
    expect((await other.initialize({ filename: 'b.png', mimeType: 'image/png', size: png.length })).status).toBe(201);

    // A chunk creates the item's storage; finalizing frees a slot.
    const chunk = await client.chunk(pending[0], 0, png);
    expect({ status: chunk.status, body: chunk.body }).toEqual({ status: 200, body: expect.anything() });
    expect(storedIds()).toEqual([pending[0]]);
    expect((await client.finalize(pending[0])).status).toBe(200);
    expect((await client.initialize({ filename: 'next.png', mimeType: 'image/png', size: png.length })).status).toBe(
      201,
    );
    // Deleting an unfinished upload frees a slot too.
    expect((await client.delete(pending[1])).status).toBe(204);
    expect((await client.initialize({ filename: 'n2.png', mimeType: 'image/png', size: png.length })).status).toBe(201);
  });

  it('expiry removes the files at once and the rows after the retention period', async () => {
    const png = makePng(2, 2);
    const { key } = await t.createWorkspace();
    const c = new MediaClient(t, key);
    const started = await c.initialize({ filename: 'x.png', mimeType: 'image/png', size: png.length * 2 });
    const untouched = await c.initialize({ filename: 'y.png', mimeType: 'image/png', size: png.length });
    const ids = [started.body.id as string, untouched.body.id as string];
    expect((await c.chunk(ids[0], 0, Buffer.concat([png, png]))).status).toBe(200);
    expect(hasBytes(media.dir, ids[0])).toBe(true);

    await t.dataSource.query(`UPDATE media SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`, [ids]);
    const service = t.app.get(MediaUploadService);
    expect(await service.expireStaleUploads()).toBe(2);
    expect(hasBytes(media.dir, ids[0])).toBe(false);
    expect((await c.get(ids[0])).body.status).toBe('expired');

    // Past the retention of expired rows, the sweep deletes them.
    await t.dataSource.query(`UPDATE media SET updated_at = now() - interval '8 days' WHERE id = ANY($1)`, [ids]);
    await service.expireStaleUploads();
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM media WHERE id = ANY($1)', [ids]);
    expect(n).toBe(0);
    expect((await c.get(ids[0])).status).toBe(404);
  });

  it('refuses at finalize an image whose dimensions cannot be read', async () => {
    const png = makePng(4, 4);
    const c = new MediaClient(t, (await t.createWorkspace()).key);
    const truncated = [png.subarray(0, 8), png.subarray(0, 20), Buffer.concat([png.subarray(0, 8), Buffer.alloc(40)])];
    for (const bytes of truncated) {
      const init = await c.initialize({
        filename: 'cut.png',
        mimeType: 'image/png',
        size: bytes.length,
        sha256: sha256(bytes),
      });
      expect(init.status).toBe(201);
      expect((await c.chunk(init.body.id, 0, bytes)).status).toBe(200);
      const fin = await c.finalize(init.body.id);
      expect({ status: fin.status, error: fin.body.error }).toEqual({ status: 422, error: 'UNPROCESSABLE_MEDIA' });
      expect(fin.body.message).toMatch(/dimensions/);
      expect((await c.get(init.body.id)).body.status).toBe('failed');
    }
  });
});
