import {
  OutboundBodyError,
  OutboundNetworkError,
  OutboundTimeoutError,
  SsrfBlockedError,
} from '../common/http/outbound-http';
import { MediaSizeMismatchError } from './media-stream.util';
import { mapHttpFailure, mapThrown, retryAfterSeconds } from './provider-http.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  MediaRejectedError,
  TransientProviderError,
} from './provider.errors';

describe('retryAfterSeconds', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads Retry-After seconds and dates', () => {
    expect(retryAfterSeconds({ 'retry-after': '120' }, now)).toBe(120);
    expect(retryAfterSeconds({ 'retry-after': 'Wed, 01 Jan 2025 00:01:00 GMT' }, now)).toBe(60);
  });

  it('reads Mastodon X-RateLimit-Reset (ISO date) and Bluesky RateLimit-Reset (epoch seconds)', () => {
    expect(retryAfterSeconds({ 'x-ratelimit-reset': '2025-01-01T00:05:00.000Z' }, now)).toBe(300);
    expect(retryAfterSeconds({ 'ratelimit-reset': String(now / 1000 + 42) }, now)).toBe(42);
  });

  it('is undefined without headers and never negative', () => {
    expect(retryAfterSeconds({}, now)).toBeUndefined();
    expect(retryAfterSeconds({ 'x-ratelimit-reset': '2024-12-31T23:00:00Z' }, now)).toBe(0);
  });
});

describe('mapHttpFailure', () => {
  it('maps statuses to the adapter error contract', () => {
    expect(mapHttpFailure('P', 401, {}, 'bad token', 'content')).toBeInstanceOf(CredentialsRevokedError);
    const limited = mapHttpFailure('P', 429, { 'retry-after': '30' }, 'slow down', 'content');
    expect(limited).toBeInstanceOf(TransientProviderError);
    expect(limited).toMatchObject({ status: 429, code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 30 });
    expect(mapHttpFailure('P', 503, {}, '', 'media')).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: true });
    expect(mapHttpFailure('P', 422, {}, 'Text too long', 'content')).toBeInstanceOf(ContentRejectedError);
    expect(mapHttpFailure('P', 422, {}, 'Text too long', 'content').message).toContain('Text too long');
    expect(mapHttpFailure('P', 413, {}, 'too big', 'media')).toBeInstanceOf(MediaRejectedError);
    expect(mapHttpFailure('P', 302, {}, '', 'content')).toBeInstanceOf(TransientProviderError);
  });
});

describe('mapThrown', () => {
  it('maps transport errors to transient errors and size mismatches to media errors', () => {
    expect(mapThrown('P', new OutboundTimeoutError('t', 'total'))).toBeInstanceOf(TransientProviderError);
    expect(mapThrown('P', new OutboundNetworkError('n', 'ECONNRESET'))).toBeInstanceOf(TransientProviderError);
    expect(mapThrown('P', new SsrfBlockedError('s', 'private-address'))).toBeInstanceOf(TransientProviderError);
    expect(mapThrown('P', new OutboundBodyError(new MediaSizeMismatchError('m', 1, 2)))).toBeInstanceOf(
      MediaRejectedError,
    );
    const bug = new TypeError('bug');
    expect(mapThrown('P', bug)).toBe(bug);
  });
});
