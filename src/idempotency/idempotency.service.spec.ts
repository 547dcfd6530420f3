import { AppError } from '../common/errors';
import { IdempotencyService, requestHash } from './idempotency.service';

describe('idempotency request hash and key checks', () => {
  it('is the same for the same body with keys in another order', () => {
    const a = requestHash({ method: 'POST', path: '/api/posts', body: { a: 1, b: { c: [1, 2], d: 'x' } } });
    const b = requestHash({ method: 'post', path: '/api/posts', body: { b: { d: 'x', c: [1, 2] }, a: 1 } });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs by body, array order, path and method', () => {
    const base = { method: 'POST', path: '/api/posts', body: { ids: [1, 2] } };
    const h = requestHash(base);
    expect(requestHash({ ...base, body: { ids: [2, 1] } })).not.toBe(h);
    expect(requestHash({ ...base, path: '/api/webhooks' })).not.toBe(h);
    expect(requestHash({ ...base, path: '/api/posts?x=1' })).not.toBe(h);
    expect(requestHash({ ...base, method: 'PUT' })).not.toBe(h);
  });

  it('accepts 1 to 255 characters', () => {
    expect(() => IdempotencyService.checkKey('k'.repeat(255))).not.toThrow();
    expect(() => IdempotencyService.checkKey('k'.repeat(256))).toThrow(AppError);
    expect(() => IdempotencyService.checkKey('')).toThrow(AppError);
  });
});
