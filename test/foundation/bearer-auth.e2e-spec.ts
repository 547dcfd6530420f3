import { TestApp } from '../support/test-app';

/**
 * `Authorization: Bearer <key>` works as the API key, like `X-API-Key`: the same checks, the same token
 * bucket, the same limit on failed authentications. Both headers naming different keys is refused.
 */
describe('Authorization: Bearer as the API key', () => {
  let t: TestApp;
  let key: string;
  let other: string;

  beforeAll(async () => {
    t = await TestApp.start({ role: 'api', env: { AUTH_FAILURES_PER_MINUTE: '3' } });
    ({ key } = await t.createWorkspace());
    ({ key: other } = await t.createWorkspace());
  });
  afterAll(() => t.close());

  const get = (headers: Record<string, string>, path = '/api/api-keys') => t.request('GET', path, { headers });

  it('accepts the key as a Bearer token, with the rate-limit headers of the key', async () => {
    const res = await get({ authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100000');
    expect((await get({ authorization: `bearer  ${key}` })).status).toBe(200);
    expect((await get({ 'x-api-key': key, authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it('answers 401 when X-API-Key and the Bearer token name different keys, or nothing usable is sent', async () => {
    const both = await get({ 'x-api-key': key, authorization: `Bearer ${other}` });
    expect(both.status).toBe(401);
    expect(both.body).toEqual({
      error: 'UNAUTHORIZED',
      message: 'X-API-Key and Authorization: Bearer name different keys; send one',
    });
    const basic = await get({ authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(401);
    expect(basic.body.message).toBe('API key required');
    const empty = await get({ authorization: 'Bearer ' });
    expect(empty.body).toEqual({
      error: 'UNAUTHORIZED',
      message: 'API key required',
    });
  });

  it('takes requests of either header from one bucket', async () => {
    const small = await t.createWorkspace(undefined, { perMinute: 1, burst: 2 });
    const statuses = [
      (await get({ 'x-api-key': small.key })).status,
      (await get({ authorization: `Bearer ${small.key}` })).status,
      (await get({ authorization: `Bearer ${small.key}` })).status,
    ];
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('counts a wrong Bearer token as a failed authentication of its address', async () => {
    const wrong = `spk_${'a'.repeat(36)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get({ authorization: `Bearer ${wrong}` })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('documents Bearer as a second security scheme of every secured operation', async () => {
    const doc = (await get({}, '/api/openapi.json')).body;
    expect(doc.components.securitySchemes.BearerKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.security).toEqual([{ ApiKey: [] }, { BearerKey: [] }]);
  });
});
