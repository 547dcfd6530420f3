import { TestApp } from '../support/test-app';

/**
 * Every answer of the OAuth endpoints agents call is OAuth's (RFC 6749 section 5.2, RFC 7591 section
 * 3.2.2; docs/adr/0043): `{error, error_description}` with `Cache-Control: no-store`, including what
 * the HTTP layer refuses before the protocol runs. And registration stores only redirect URIs that
 * are what they look like.
 */

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';
const MB = 1024 * 1024;

/** RFC 6749 section 5.2: error_description is printable ASCII without `"` and `\`. */
const DESCRIPTION = /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/;

interface Endpoint {
  path: string;
  /** The error of a request that cannot be read. */
  readError: string;
  /** A body the endpoint takes (what the hostile bodies stand beside). */
  type: string;
}

const ENDPOINTS: Endpoint[] = [
  { path: '/oauth/register', readError: 'invalid_client_metadata', type: JSON_TYPE },
  { path: '/oauth/token', readError: 'invalid_request', type: FORM_TYPE },
  { path: '/oauth/revoke', readError: 'invalid_request', type: FORM_TYPE },
];

interface Hostile {
  what: string;
  type?: string;
  body?: string | Buffer;
  query?: string;
  status: number;
  /** The error, when it is not the endpoint's readError. */
  error?: string;
  /** Some words of the description. */
  says: RegExp;
}

const HOSTILE: Hostile[] = [
  {
    what: 'an escaped NUL in a JSON string',
    type: JSON_TYPE,
    body: '{"client_name":"a\\u0000b"}',
    status: 400,
    says: /NUL/,
  },
  { what: 'an escaped NUL in a JSON key', type: JSON_TYPE, body: '{"a\\u0000":1}', status: 400, says: /NUL/ },
  {
    what: 'a raw NUL byte in JSON',
    type: JSON_TYPE,
    body: Buffer.from('{"client_name":"a\0b"}'),
    status: 400,
    says: /JSON/,
  },
  { what: 'a NUL in a form value', type: FORM_TYPE, body: 'grant_type=a%00b&token=x', status: 400, says: /NUL/ },
  { what: 'a NUL in a form key', type: FORM_TYPE, body: 'a%00b=1', status: 400, says: /NUL/ },
  { what: 'a NUL in the query string', type: FORM_TYPE, body: 'x=1', query: '?x=%00', status: 400, says: /NUL/ },
  { what: 'malformed JSON', type: JSON_TYPE, body: '{"redirect_uris":', status: 400, says: /Malformed JSON/ },
  { what: 'an empty JSON body', type: JSON_TYPE, body: '', status: 400, says: /empty/ },
  {
    what: 'JSON nested too deeply',
    type: JSON_TYPE,
    body: `${'['.repeat(100)}${']'.repeat(100)}`,
    status: 400,
    says: /nested/,
  },
  { what: 'a __proto__ key', type: JSON_TYPE, body: '{"__proto__":{"admin":true}}', status: 400, says: /__proto__/ },
  {
    what: 'a 1 MB JSON body',
    type: JSON_TYPE,
    body: JSON.stringify({ client_name: 'x'.repeat(MB), redirect_uris: ['https://a.example/cb'] }),
    status: 413,
    says: /too large/,
  },
  { what: 'a 1 MB form body', type: FORM_TYPE, body: `grant_type=${'x'.repeat(MB)}`, status: 413, says: /too large/ },
  {
    what: 'a text/plain body',
    type: 'text/plain',
    body: 'grant_type=refresh_token',
    status: 415,
    says: /content type|application\//,
  },
  { what: 'an XML body', type: 'application/xml', body: '<x/>', status: 415, says: /content type|application\// },
];

describe('OAuth endpoints answer every error in the OAuth shape', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start({ env: { MCP_OAUTH_REGISTRATIONS_PER_HOUR: '1000' } });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const post = (path: string, type: string | undefined, body: string | Buffer | undefined) =>
    fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });

  /** The answer is OAuth's error shape, never the API's `{error, message}`, and is not cached. */
  const expectOAuthError = async (res: Response, status: number, error: string, says: RegExp) => {
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect({ status: res.status, body }).toEqual({
      status,
      body: { error, error_description: expect.stringMatching(says) },
    });
    expect(body.error_description).toMatch(DESCRIPTION);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  };

  describe.each(ENDPOINTS)('$path', ({ path, readError, type }) => {
    it.each(HOSTILE)('refuses $what', async ({ type: bodyType, body, query, status, error, says }) => {
      const res = await post(`${path}${query ?? ''}`, bodyType, body);
      await expectOAuthError(res, status, error ?? readError, says);
    });

    it.each(['GET', 'PUT', 'PATCH', 'DELETE'])('answers %s with 405 naming POST', async (method) => {
      const res = await fetch(`${t.baseUrl}${path}`, { method });
      await expectOAuthError(res, 405, 'invalid_request', new RegExp(`Use POST: ${method}`));
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    });

    it('refuses a request without a body in the OAuth shape too', async () => {
      const res = await post(path, undefined, undefined);
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('still answers a well-formed request', async () => {
      const body =
        type === JSON_TYPE
          ? JSON.stringify({ client_name: 'Fine', redirect_uris: ['https://agent.example/cb'] })
          : 'grant_type=refresh_token&refresh_token=spo_rt_nothing&token=nothing';
      const res = await post(path, type, body);
      expect([200, 201, 400]).toContain(res.status);
      const answer = (await res.json()) as Record<string, unknown>;
      expect(answer).not.toHaveProperty('message');
      expect(res.headers.get('cache-control')).toBe('no-store');
    });
  });

  describe('registration refuses redirect URIs that are not what they look like', () => {
    const register = (redirectUris: unknown[], extra: Record<string, unknown> = {}) =>
      post(
        '/oauth/register',
        JSON_TYPE,
        JSON.stringify({ client_name: 'Agent', redirect_uris: redirectUris, ...extra }),
      );
    const clients = async () => Number((await t.dataSource.query('SELECT count(*)::int AS n FROM oauth_clients'))[0].n);

    it.each([
      ['CR LF (a header split)', 'https://agent.example/cb\r\nSet-Cookie: session=stolen', /control/],
      ['LF alone', 'https://agent.example/cb\n', /control/],
      ['a TAB', 'https://agent.\texample/cb', /control/],
      ['a leading control character', '\u0001https://agent.example/cb', /control/],
      ['NUL', 'https://agent.example/cb\u0000', /NUL/],
      ['DEL', 'https://agent.example/cb\u007f', /control/],
      ['a C1 control (NEL)', 'https://agent.example/cb\u0085', /control/],
      ['a space', 'https://agent.example/c b', /RFC 3986/],
      ['a backslash', 'https://agent.example\\evil.example/cb', /RFC 3986/],
      ['no slashes after the scheme', 'https:agent.example/cb', /scheme/],
      ['plain http elsewhere than loopback', 'http://agent.example/cb', /loopback/],
      ['a custom scheme', 'com.example.agent:/cb', /https/],
      ['javascript', 'javascript:alert(1)', /https/],
      ['a relative reference', '/cb', /absolute/],
    ])('%s', async (_what, uri, says) => {
      const before = await clients();
      const res = await register(['https://agent.example/ok', uri]);
      await expectOAuthError(res, 400, 'invalid_redirect_uri', says);
      expect(await clients()).toBe(before);
    });

    it('takes the metadata as JSON only', async () => {
      const res = await post(
        '/oauth/register',
        FORM_TYPE,
        'client_name=Agent&redirect_uris=https%3A%2F%2Fa.example%2Fcb',
      );
      await expectOAuthError(res, 415, 'invalid_client_metadata', /application\/json/);
    });

    it('accepts https, and http on 127.0.0.1, [::1] and localhost, and echoes them as given', async () => {
      const uris = [
        'https://agent.example/cb?x=%20y',
        'http://127.0.0.1:33418/callback',
        'http://[::1]:8080/cb',
        'http://localhost/cb',
      ];
      const res = await register(uris);
      expect(res.status).toBe(201);
      expect(((await res.json()) as { redirect_uris: string[] }).redirect_uris).toEqual(uris);
    });

    it('refuses control characters in the metadata it shows on the consent page', async () => {
      for (const field of ['client_name', 'client_uri', 'software_id', 'software_version']) {
        const res = await register(['https://agent.example/cb'], { [field]: 'Agent\r\nApproved: yes' });
        await expectOAuthError(res, 400, 'invalid_client_metadata', new RegExp(`${field}: must not contain control`));
      }
    });
  });
});
