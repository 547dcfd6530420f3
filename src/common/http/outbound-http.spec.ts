import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import {
  OutboundBodyError,
  OutboundHttp,
  OutboundNetworkError,
  OutboundResponseTooLargeError,
  OutboundTimeoutError,
} from './outbound-http';

describe('OutboundHttp', () => {
  let server: http.Server;
  let base: string;
  let client: OutboundHttp;
  const received: Array<{ method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          method: req.method,
          url: req.url,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        });
        switch (req.url) {
          case '/redirect':
            res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
            return;
          case '/slow':
            setTimeout(() => res.end('late'), 500);
            return;
          case '/big':
            res.end(Buffer.alloc(2048, 'x'));
            return;
          case '/json':
            res.setHeader('content-type', 'application/json');
            res.end(
              JSON.stringify({ ok: true, echo: chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : null }),
            );
            return;
          case '/cut':
            res.writeHead(200, { 'content-length': '100' });
            res.write('partial');
            setTimeout(() => res.destroy(), 20);
            return;
          default:
            res.end('ok');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 2000, userAgent: 'test-agent/1' });
  });

  afterAll(async () => {
    client.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('returns redirects without following them', async () => {
    const res = await client.request({ method: 'GET', url: `${base}/redirect` });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('http://169.254.169.254/');
  });

  it('sends string, Buffer and stream bodies with the user agent', async () => {
    await client.request({ method: 'POST', url: `${base}/echo`, body: 'hello' });
    await client.request({ method: 'POST', url: `${base}/echo`, body: Buffer.from('buffer') });
    await client.request({
      method: 'POST',
      url: `${base}/echo`,
      body: Readable.from([Buffer.from('str'), Buffer.from('eam')]),
    });
    const bodies = received.slice(-3);
    expect(bodies.map((r) => r.body)).toEqual(['hello', 'buffer', 'stream']);
    expect(bodies[0].headers['user-agent']).toBe('test-agent/1');
    expect(bodies[0].headers['content-length']).toBe('5');
  });

  it('serializes and parses JSON', async () => {
    const res = await client.json<{ ok: boolean; echo: { a: number } }>({
      method: 'POST',
      url: `${base}/json`,
      json: { a: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ ok: true, echo: { a: 1 } });
    expect(received[received.length - 1].headers['content-type']).toBe('application/json');
  });

  it('maps a slow response to OutboundTimeoutError', async () => {
    await expect(client.request({ method: 'GET', url: `${base}/slow`, timeoutMs: 100 })).rejects.toBeInstanceOf(
      OutboundTimeoutError,
    );
  });

  it('refuses responses larger than maxResponseBytes', async () => {
    await expect(client.request({ method: 'GET', url: `${base}/big`, maxResponseBytes: 1024 })).rejects.toBeInstanceOf(
      OutboundResponseTooLargeError,
    );
    const ok = await client.request({ method: 'GET', url: `${base}/big`, maxResponseBytes: 4096 });
    expect(ok.body.length).toBe(2048);
  });

  it('maps refused connections and cut responses to OutboundNetworkError', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(client.request({ method: 'GET', url: `http://127.0.0.1:${port}/` })).rejects.toMatchObject({
      name: 'OutboundNetworkError',
      code: 'ECONNREFUSED',
    });
    await expect(client.request({ method: 'GET', url: `${base}/cut` })).rejects.toBeInstanceOf(OutboundNetworkError);
  });

  it('reports a failing body stream as OutboundBodyError', async () => {
    const body = new Readable({
      read() {
        this.destroy(new Error('disk gone'));
      },
    });
    await expect(
      client.request({ method: 'POST', url: `${base}/echo`, body, headers: { 'content-length': '10' } }),
    ).rejects.toBeInstanceOf(OutboundBodyError);
  });
});
