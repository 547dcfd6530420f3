// Default imports give the real module objects, so jest.spyOn sees the calls made by OutboundHttp.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { OutboundHttp } from './outbound-http';
import { SsrfBlockedError, assertPublicUrl, isPrivateAddress } from './ssrf';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '0.1.2.3',
    '255.255.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '198.18.0.1',
    '192.0.2.10',
    '::',
    '::1',
    '[::1]',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '64:ff9b::10.0.0.1',
    '2002:0a00:0001::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fec0::1',
    'ff02::1',
    '2001:db8::1',
    '2001::1',
    '100::1',
    'not-an-ip',
    '',
  ])('treats %s as private', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  describe.each([
    ['0.0.0.0/8 ("this" network)', ['0.0.0.1', '0.255.255.255']],
    ['100.64.0.0/10 (carrier-grade NAT)', ['100.64.0.0', '100.100.100.200', '100.127.255.255']],
    ['link-local', ['169.254.0.1', '169.254.255.255', 'fe80::abcd:1', 'febf:ffff::1']],
    ['unique-local fc00::/7', ['fc00::', 'fc00::1', 'fdff:ffff:ffff:ffff::1']],
    ['multicast', ['224.0.0.251', '239.0.0.1', 'ff05::2', 'ff0e::1']],
    [
      'IPv4-mapped IPv6 of a private IPv4',
      ['::ffff:192.168.0.1', '::ffff:c0a8:1', '::ffff:100.64.0.1', '::ffff:0.0.0.0'],
    ],
    ['SIIT (::ffff:0:0:0/96) of a private IPv4', ['::ffff:0:7f00:1', '::ffff:0:a00:1']],
    [
      'NAT64 64:ff9b::/96 of a private IPv4, and local-use NAT64',
      ['64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::1'],
    ],
    ['6to4 of a private IPv4', ['2002:7f00:1::1', '2002:a9fe:a9fe::', '2002:c0a8:101::1', '2002:6440:1::1']],
    ['Teredo 2001::/32 (embeds an obfuscated IPv4)', ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:ffff::1']],
    [
      'documentation, benchmarking and other IETF special-purpose IPv6',
      ['2001:db8:85a3::8a2e:370:7334', '3fff::1', '2001:2::1', '2001:10::1', '2001:20::1'],
    ],
    ['outside global unicast 2000::/3', ['4000::1', 'e000::1', 'fe00::1', '5f00::1']],
  ])('%s', (_name, ips) => {
    it.each(ips)('treats %s as private', (ip) => {
      expect(isPrivateAddress(ip)).toBe(true);
    });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '192.169.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:81b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:0808:0808::1',
    '::ffff:808:808',
    '::ffff:0:808:808',
    '64:ff9b::1.1.1.1',
    '1.0.0.0',
    '223.255.255.255',
    '192.175.48.1', // AS112 anycast DNS (public service)
    '2620:4f:8000::1', // AS112 anycast DNS (public service)
    '2001:4860:4860::8888',
    '2001:200::1', // just past the IETF block 2001::/23
  ])('treats %s as public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });
});

describe('assertPublicUrl', () => {
  it('refuses non-http schemes even when private addresses are allowed', async () => {
    await expect(assertPublicUrl('file:///etc/passwd', true)).rejects.toBeInstanceOf(SsrfBlockedError);
    await expect(assertPublicUrl('gopher://example.com/', true)).rejects.toMatchObject({ reason: 'scheme' });
    await expect(assertPublicUrl('not a url', true)).rejects.toMatchObject({ reason: 'invalid-url' });
  });

  it.each([
    'http://127.0.0.1/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'https://localhost/',
  ])('refuses %s', async (url) => {
    await expect(assertPublicUrl(url, false)).rejects.toMatchObject({ reason: 'private-address' });
  });

  it('accepts public literal addresses and private ones when allowed', async () => {
    await expect(assertPublicUrl('https://8.8.8.8/', false)).resolves.toBeUndefined();
    await expect(assertPublicUrl('http://127.0.0.1:3000/', true)).resolves.toBeUndefined();
  });
});

describe('OutboundHttp SSRF guard', () => {
  let client: OutboundHttp;
  let server: http.Server;
  let port: number;
  let connections = 0;
  let httpSpy: jest.SpyInstance;
  let httpsSpy: jest.SpyInstance;

  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('reached'));
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    client = new OutboundHttp({ allowPrivate: false, defaultTimeoutMs: 2000 });
  });

  afterAll(async () => {
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    connections = 0;
    httpSpy = jest.spyOn(http, 'request');
    httpsSpy = jest.spyOn(https, 'request');
  });

  afterEach(() => {
    httpSpy.mockRestore();
    httpsSpy.mockRestore();
  });

  it.each([
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'https://192.168.0.1/',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'http://[ff02::1]/',
    'http://224.0.0.1/',
  ])('refuses %s before any connection attempt', async (url) => {
    await expect(client.request({ method: 'GET', url })).rejects.toBeInstanceOf(SsrfBlockedError);
    expect(httpSpy).not.toHaveBeenCalled();
    expect(httpsSpy).not.toHaveBeenCalled();
  });

  it.each(['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '0.0.0.0'])(
    'refuses loopback literal %s without traffic',
    async (host) => {
      await expect(client.request({ method: 'GET', url: `http://${host}:${port}/` })).rejects.toBeInstanceOf(
        SsrfBlockedError,
      );
      expect(httpSpy).not.toHaveBeenCalled();
      expect(connections).toBe(0);
    },
  );

  it('refuses a hostname that resolves to loopback (localhost) at connect time', async () => {
    const started = Date.now();
    await expect(client.request({ method: 'GET', url: `http://localhost:${port}/` })).rejects.toBeInstanceOf(
      SsrfBlockedError,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(connections).toBe(0);
  });

  it('refuses non-http schemes', async () => {
    await expect(client.request({ method: 'GET', url: 'ftp://example.com/' })).rejects.toMatchObject({
      reason: 'scheme',
    });
  });

  it('reaches the same server when private addresses are allowed', async () => {
    const open = new OutboundHttp({ allowPrivate: true });
    try {
      const res = await open.request({ method: 'GET', url: `http://localhost:${port}/` });
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('reached');
      expect(httpSpy).toHaveBeenCalledTimes(1);
      expect(connections).toBe(1);
    } finally {
      open.close();
    }
  });
});
