import { TestApp } from '../support/test-app';

/**
 * The JSON API takes JSON bodies only: any other Content-Type on a route with a JSON body is a 415
 * UNSUPPORTED_MEDIA_TYPE before anything reads or validates the body. The chunk upload keeps
 * multipart/form-data, and the console keeps its HTML forms.
 */
describe('request content types', () => {
  let t: TestApp;
  let key: string;
  let webhookId: string;

  beforeAll(async () => {
    t = await TestApp.start();
    ({ key } = await t.createWorkspace());
    const hook = await t.request('POST', '/api/webhooks', { key, body: { url: 'http://127.0.0.1:9/hook' } });
    webhookId = hook.body.id;
  });
  afterAll(() => t.close());

  const keyCount = async () => (await t.request('GET', '/api/api-keys?limit=100', { key })).body.data.length as number;

  const send = (method: string, path: string, body: string | undefined, contentType: string | undefined) =>
    t.request(method, path, { key, rawBody: body, headers: contentType ? { 'content-type': contentType } : {} });

  it('answers a body that is not application/json with 415 on every JSON route, and changes nothing', async () => {
    const before = await keyCount();
    const routes: Array<[string, string, unknown]> = [
      ['POST', '/api/api-keys', { name: 'typed' }],
      ['POST', '/api/posts', { content: 'typed', channelIds: ['00000000-0000-4000-8000-000000000000'] }],
      ['PUT', `/api/webhooks/${webhookId}`, { url: 'http://127.0.0.1:9/other' }],
      ['POST', '/api/media/upload/initialize', { filename: 'a.png', mimeType: 'image/png', size: 10 }],
    ];
    const bodies: Array<[string | undefined, (json: unknown) => string]> = [
      ['text/plain', (json) => JSON.stringify(json)],
      ['text/plain; charset=utf-8', (json) => JSON.stringify(json)],
      ['application/x-www-form-urlencoded', () => 'name=typed&content=typed'],
      ['application/xml', () => '<name>typed</name>'],
      ['application/merge-patch+json', (json) => JSON.stringify(json)],
      [
        'multipart/form-data; boundary=x',
        () => '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\ntyped\r\n--x--\r\n',
      ],
      [undefined, (json) => JSON.stringify(json)],
    ];
    for (const [method, path, json] of routes) {
      for (const [contentType, body] of bodies) {
        const res = await send(method, path, body(json), contentType);
        expect({ path, contentType, status: res.status, error: res.body?.error }).toEqual({
          path,
          contentType,
          status: 415,
          error: 'UNSUPPORTED_MEDIA_TYPE',
        });
        expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
        expect(res.body.message).toMatch(/application\/json/);
      }
    }
    expect(await keyCount()).toBe(before);
    expect((await t.request('GET', `/api/webhooks/${webhookId}`, { key })).body.url).toBe('http://127.0.0.1:9/hook');
  });

  it('takes application/json in any letter case and with parameters', async () => {
    for (const contentType of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON;charset=UTF-8',
    ]) {
      const res = await send('POST', '/api/api-keys', JSON.stringify({ name: contentType }), contentType);
      expect({ contentType, status: res.status }).toEqual({ contentType, status: 201 });
    }
  });

  it('lets operations without a body through without a Content-Type', async () => {
    const test = await send('POST', `/api/webhooks/${webhookId}/test`, undefined, undefined);
    expect(test.status).toBe(202);
    const empty = await send('POST', `/api/webhooks/${webhookId}/test`, '', 'text/plain');
    expect(empty.status).toBe(202);
  });

  it('keeps multipart/form-data on the chunk upload, and answers JSON there with its own 415', async () => {
    const init = await t.request('POST', '/api/media/upload/initialize', {
      key,
      body: { filename: 'a.gif', mimeType: 'image/gif', size: 6 },
    });
    const form = new FormData();
    form.set('mediaId', init.body.id);
    form.set('chunkIndex', '0');
    form.set('chunk', new Blob([Buffer.from('GIF89a')]), 'c');
    const chunk = await t.request('POST', '/api/media/upload/file', { key, rawBody: form });
    expect(chunk.status).toBe(200);
    const json = await t.request('POST', '/api/media/upload/file', { key, body: { mediaId: init.body.id } });
    expect({ status: json.status, error: json.body.error }).toEqual({ status: 415, error: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(json.body.message).toMatch(/multipart\/form-data/);
  });

  it('keeps HTML forms on the console', async () => {
    const res = await fetch(`${t.baseUrl}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=nobody%40example.com&password=x',
      redirect: 'manual',
    });
    expect(res.status).not.toBe(415);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
  });
});
