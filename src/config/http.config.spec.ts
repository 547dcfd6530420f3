import { HttpEnv, parseTrustProxy, serverEnvironments, trustProxyOption } from './http.config';
import { ConfigValidationError, validateEnv } from './validate-env';

describe('HTTP configuration', () => {
  it('accepts base addresses ending with /api, including localhost with a port', () => {
    const env = validateEnv(HttpEnv, {
      PRODUCTION_BASE_URL: 'https://api.example.com/api',
      DEVELOPMENT_BASE_URL: 'http://dev.internal:8080/api',
      LOCAL_BASE_URL: 'https://localhost:3000/api',
    });
    expect(env.LOCAL_BASE_URL).toBe('https://localhost:3000/api');
  });

  it.each([
    ['PRODUCTION_BASE_URL', 'https://api.example.com'],
    ['PRODUCTION_BASE_URL', 'https://api.example.com/api/'],
    ['DEVELOPMENT_BASE_URL', '/api'],
    ['LOCAL_BASE_URL', 'ftp://localhost/api'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => validateEnv(HttpEnv, { [name]: value })).toThrow(ConfigValidationError);
    expect(() => validateEnv(HttpEnv, { [name]: value })).toThrow(new RegExp(`${name}=.*ending with /api`));
  });

  it('lists environments in a fixed order and leaves unset ones out', () => {
    expect(serverEnvironments({ local: 'https://localhost:3000/api', production: 'https://a.example/api' })).toEqual([
      { url: 'https://a.example/api', description: 'Production' },
      { url: 'https://localhost:3000/api', description: 'Local (HTTPS)' },
    ]);
    expect(serverEnvironments({})).toEqual([]);
  });

  it('reads TRUST_PROXY as off, on, a hop count or an address list', () => {
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => validateEnv(HttpEnv, { TRUST_PROXY: 'maybe' })).toThrow(/TRUST_PROXY/);
  });

  it('hands Fastify a hop count as a function trusting that many nearest hops (Fastify trusts none for a number)', () => {
    const two = trustProxyOption(2);
    if (typeof two !== 'function') throw new Error('expected a trust function');
    expect([0, 1, 2].map((hop) => two('10.0.0.1', hop))).toEqual([true, true, false]);
    expect(trustProxyOption(0)).toBe(false);
    expect(trustProxyOption(true)).toBe(true);
    expect(trustProxyOption(['127.0.0.1'])).toEqual(['127.0.0.1']);
  });
});
