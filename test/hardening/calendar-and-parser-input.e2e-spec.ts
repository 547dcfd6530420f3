import { TestApp } from '../support/test-app';

/**
 * Input that passed validation and then failed deeper down with a 500: dates that are not on the
 * calendar (or carry an offset Postgres refuses) in cursors and date fields, an IPv6 zone id in a
 * download URL, a multipart body cut off before its closing boundary. Each is a 400 naming the field.
 */
describe('input that used to reach Postgres or a parser as a 500', () => {
  let t: TestApp;
  let key: string;
  let doc: any;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await TestApp.start();
    ({ key } = await t.createWorkspace());
    doc = (await t.request('GET', '/api/openapi.json')).body;
    ids.channel = await t.connectChannel(key, 'sandbox', { name: 'calendar' });
    const hook = await t.request('POST', '/api/webhooks', { key, body: { url: 'http://127.0.0.1:9/hook' } });
    ids.webhook = hook.body.id;
  });
  afterAll(() => t.close());

  const expectValidationError = (res: { status: number; body: any; text: string }, field: string, what: string) => {
    expect({ what, status: res.status, error: res.body?.error }).toEqual({
      what,
      status: 400,
      error: 'VALIDATION_ERROR',
    });
    expect(Object.keys(res.body).filter((k) => !['error', 'message', 'details'].includes(k))).toEqual([]);
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  };

  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const ID = '00000000-0000-4000-8000-000000000000';

  /** Timestamps JavaScript's Date.parse accepts and Postgres refuses (or that name no instant at all). */
  const NOT_ON_THE_CALENDAR = [
    '2026-02-30T00:00:00Z',
    '2026-02-29T00:00:00Z', // 2026 is not a leap year
    '2026-04-31T12:00:00Z',
    '2026-06-31T00:00:00.123456Z',
  ];
  const BAD_OFFSETS = ['2030-01-01T00:00:00+23:59', '2030-01-01T00:00:00-16:00', '2030-01-01T00:00:00+14:60'];

  /** Every list of the OpenAPI document (a GET answering `nextCursor`), with its path filled in. */
  function lists(): string[] {
    const out: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const ok = item.get?.responses?.['200']?.content?.['application/json']?.schema;
      if (!ok?.properties?.nextCursor) continue;
      // `/channels/{id}/...` takes the channel, `/webhooks/{id}/...` the webhook.
      const owner = path.split('/')[1].replace(/s$/, '');
      out.push(`${doc.servers[0].url}${path}`.replace(/\{(\w+)\}/g, () => ids[owner]));
    }
    return out;
  }

  it('answers a cursor carrying a date off the calendar with 400 on every list', async () => {
    const paths = lists();
    expect(paths.length).toBeGreaterThanOrEqual(7);
    for (const path of paths) {
      for (const at of NOT_ON_THE_CALENDAR) {
        const res = await t.request('GET', `${path}?cursor=${b64([at, ID])}`, { key });
        expectValidationError(res, 'cursor', `${path} cursor ${at}`);
      }
    }
  });

  it('answers from/to off the calendar or with an impossible offset with 400 naming the field', async () => {
    for (const at of [...NOT_ON_THE_CALENDAR, ...BAD_OFFSETS]) {
      for (const field of ['from', 'to']) {
        const res = await t.request('GET', `/api/posts?${field}=${encodeURIComponent(at)}`, { key });
        expectValidationError(res, field, `posts ${field}=${at}`);
        const replay = await t.request('POST', `/api/webhooks/${ids.webhook}/replay`, {
          key,
          body: { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', [field]: at },
        });
        expectValidationError(replay, field, `replay ${field}=${at}`);
      }
      const post = await t.request('POST', '/api/posts', {
        key,
        body: { content: 'when?', channelIds: [ids.channel], scheduledAt: at.replace(/^20\d\d/, '2999') },
      });
      expectValidationError(post, 'scheduledAt', `scheduledAt=${at}`);
      const apiKey = await t.request('POST', '/api/api-keys', {
        key,
        body: { name: 'k', expiresAt: at.replace(/^20\d\d/, '2999') },
      });
      expectValidationError(apiKey, 'expiresAt', `expiresAt=${at}`);
    }
  });

  it('still takes real dates with any real offset', async () => {
    for (const at of ['2028-02-29T23:59:59.999999Z', '2030-01-01T00:00:00+14:00', '2030-01-01T00:00:00-12:00']) {
      const res = await t.request('GET', `/api/posts?from=${encodeURIComponent(at)}`, { key });
      expect({ at, status: res.status }).toEqual({ at, status: 200 });
    }
    const page = await t.request('GET', `/api/posts?cursor=${b64(['2028-02-29T23:59:59.999999Z', ID])}`, { key });
    expect(page.status).toBe(200);
  });

  it('answers an IPv6 zone id in an upload URL with 400 naming url', async () => {
    for (const url of ['http://[::1%25lo]:4199/x', 'http://[fe80::1%25eth0]/a.png', 'https://[::1%lo]/x']) {
      const res = await t.request('POST', '/api/media/upload/url', { key, body: { url } });
      expectValidationError(res, 'url', url);
    }
  });

  it('answers a chunk body cut off before its closing boundary with 400', async () => {
    const init = await t.request('POST', '/api/media/upload/initialize', {
      key,
      body: { filename: 'a.gif', mimeType: 'image/gif', size: 6 },
    });
    expect(init.status).toBe(201);
    const boundary = 'sps-cut';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="mediaId"\r\n\r\n${init.body.id}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="chunkIndex"\r\n\r\n0\r\n`;
    const file =
      `--${boundary}\r\nContent-Disposition: form-data; name="chunk"; filename="c"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\nGIF89a';
    for (const [what, body] of [
      ['file part without closing boundary', head + file],
      ['file part ending in CRLF', `${head + file}\r\n`],
      ['fields only, no closing boundary', head],
      ['cut inside the part headers', `${head}--${boundary}\r\nContent-Disposition: form-da`],
    ]) {
      const res = await t.request('POST', '/api/media/upload/file', {
        key,
        rawBody: body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect({ what, status: res.status, error: res.body?.error }).toEqual({
        what,
        status: 400,
        error: 'VALIDATION_ERROR',
      });
      expect(res.body.message).toMatch(/multipart/i);
    }
    // Nothing was stored from the cut-off bodies: the item still waits for its chunk.
    const item = await t.request('GET', `/api/media/${init.body.id}`, { key });
    expect(item.body.receivedChunks ?? []).toEqual([]);
  });
});
