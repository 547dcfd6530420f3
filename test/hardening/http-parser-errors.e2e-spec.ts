import { RawResponse, rawRequest } from '../support/raw-http';
import { TestApp } from '../support/test-app';

/**
 * Requests Node's HTTP parser refuses before any route sees them: the answer is still written by the
 * service in its error shape (`{error, message}` as JSON, with X-Request-Id), not Node's or Fastify's.
 */
describe("HTTP parser-level errors in the service's error shape", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t.close());

  const expectShaped = (responses: RawResponse[], status: number, error: string, what: string) => {
    expect({ what, count: responses.length }).toEqual({ what, count: 1 });
    const [res] = responses;
    expect({ what, status: res.status }).toEqual({ what, status });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.connection).toBe('close');
    const body = JSON.parse(res.body);
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    expect(body.error).toBe(error);
    expect(typeof body.message).toBe('string');
  };

  const host = () => `Host: ${new URL(t.baseUrl).host}\r\n`;

  it('answers an overlong URL and overlong headers with 431 in the error shape', async () => {
    const url = await rawRequest(t.baseUrl, `GET /api/posts?q=${'a'.repeat(20_000)} HTTP/1.1\r\n${host()}\r\n`);
    expectShaped(url, 431, 'VALIDATION_ERROR', 'overlong URL');
    const headers = Array.from({ length: 40 }, (_, i) => `X-Filler-${i}: ${'b'.repeat(500)}\r\n`).join('');
    const big = await rawRequest(t.baseUrl, `GET /api/health/live HTTP/1.1\r\n${host()}${headers}\r\n`);
    expectShaped(big, 431, 'VALIDATION_ERROR', 'overlong headers');
  });

  const malformed: Array<[string, Buffer | string]> = [
    ['a control byte in a header value', `GET /api/health/live HTTP/1.1\r\nHost: x\r\nX-Note: a\u0001b\r\n\r\n`],
    ['an obs-fold header line', `GET /api/health/live HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n folded\r\n\r\n`],
    [
      'Content-Length with Transfer-Encoding',
      'POST /api/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n' +
        'Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    ],
    [
      'two different Content-Lengths',
      'POST /api/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    [
      'a bad chunk size',
      'POST /api/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
    [
      'a non-ASCII path',
      Buffer.concat([
        Buffer.from('GET /api/posts/'),
        Buffer.from([0xc3, 0xa9]),
        Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]),
    ],
    ['a header name with a space', 'GET /api/health/live HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n'],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
  ];

  it.each(malformed)('answers %s with 400 in the error shape', async (what, request) => {
    expectShaped(await rawRequest(t.baseUrl, request), 400, 'VALIDATION_ERROR', what);
  });

  it('answers a good request on the same connection first, then the malformed one in the shape', async () => {
    const responses = await rawRequest(
      t.baseUrl,
      `GET /api/health/live HTTP/1.1\r\n${host()}\r\nGET /api/health/live HTTP/1.1\r\nHost: x\r\nX-Note: a\u0001b\r\n\r\n`,
    );
    expect(responses.map((r) => r.status)).toEqual([200, 400]);
    expect(JSON.parse(responses[1].body).error).toBe('VALIDATION_ERROR');
  });
});

/**
 * An HTTP/1.1 request without a Host header (RFC 9112 section 3.2): Node answers it with an empty 400
 * of its own unless told not to; the service answers it in its error shape.
 */
describe('a request without a Host header', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t.close());

  it.each([
    ['GET /api/health/live', 'GET /api/health/live HTTP/1.1\r\n\r\n'],
    ['GET of an unknown path', 'GET /api/nowhere HTTP/1.1\r\n\r\n'],
    ['POST with a body', 'POST /api/posts HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'],
  ])('answers %s with 400 VALIDATION_ERROR in the error shape', async (_what, request) => {
    const responses = await rawRequest(t.baseUrl, request);
    expect(responses).toHaveLength(1);
    const [res] = responses;
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.connection).toBe('close');
    const body = JSON.parse(res.body);
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    expect(body).toEqual({ error: 'VALIDATION_ERROR', message: expect.stringMatching(/Host header/) });
  });

  it('still answers an HTTP/1.0 request without Host, which the protocol allows', async () => {
    const [res] = await rawRequest(t.baseUrl, 'GET /api/health/live HTTP/1.0\r\n\r\n');
    expect(res.status).toBe(200);
  });
});
