import { OutboundHttp } from '../../common/http/outbound-http';
import { ContentRejectedError, CredentialsRevokedError, TransientProviderError } from '../provider.errors';
import { googleBusinessHost, googleErrorText, mapGoogleBusinessFailure } from './google-business-api.client';
import { parseGoogleBusinessCredentials } from './google-business.credentials';
import { GOOGLE_BUSINESS_LIMITS } from './google-business.limits';
import { GoogleBusinessProvider } from './google-business.provider';

describe('Google Business Profile hosts', () => {
  it("calls each API on Google's own host by default, and every API on an override", () => {
    const google = 'https://mybusiness.googleapis.com';
    expect(googleBusinessHost(google, 'accounts')).toBe('https://mybusinessaccountmanagement.googleapis.com');
    expect(googleBusinessHost(`${google}/`, 'locations')).toBe('https://mybusinessbusinessinformation.googleapis.com');
    expect(googleBusinessHost(google, 'posts')).toBe(google);
    expect(googleBusinessHost('http://127.0.0.1:4000', 'accounts')).toBe('http://127.0.0.1:4000');
  });
});

describe('Google Business Profile failures', () => {
  const res = (status: number, data: unknown, headers: Record<string, string> = {}) => ({ status, data, headers });
  const validation = {
    error: {
      code: 400,
      message: 'Request contains an invalid argument.',
      status: 'INVALID_ARGUMENT',
      details: [
        {
          '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError',
          errorDetails: [{ code: 3, field: 'summary', message: 'Phone numbers are not allowed' }],
        },
      ],
    },
  };

  it("reads Google's error with the v4 validation detail", () => {
    expect(googleErrorText(validation)).toBe(
      'INVALID_ARGUMENT: Request contains an invalid argument.: summary: Phone numbers are not allowed',
    );
    expect(googleErrorText('<html>')).toBe('');
  });

  it('waits a quota minute after a 429 without Retry-After, and Retry-After when sent', () => {
    const quota = { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded' } };
    const minute = mapGoogleBusinessFailure(res(429, quota), 'content') as TransientProviderError;
    expect(minute).toBeInstanceOf(TransientProviderError);
    expect(minute.code).toBe('PROVIDER_RATE_LIMITED');
    expect(minute.retryAfterSeconds).toBe(60);
    expect(
      (mapGoogleBusinessFailure(res(429, quota, { 'retry-after': '5' }), 'content') as TransientProviderError)
        .retryAfterSeconds,
    ).toBe(5);
  });

  it('maps 401 to revoked and a validation error to a refusal naming the field', () => {
    expect(mapGoogleBusinessFailure(res(401, {}), 'content')).toBeInstanceOf(CredentialsRevokedError);
    const refused = mapGoogleBusinessFailure(res(400, validation), 'content');
    expect(refused).toBeInstanceOf(ContentRejectedError);
    expect(refused.message).toContain('summary: Phone numbers are not allowed');
  });
});

describe('GoogleBusinessProvider', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new GoogleBusinessProvider(http);
  afterAll(() => http.close());

  it('allows 1,500 characters and one photo', () => {
    expect(provider.validate({ content: 'x'.repeat(1500), media: [] }, GOOGLE_BUSINESS_LIMITS)).toEqual([]);
    const photo = { id: 'm1', mimeType: 'image/png', size: 10, width: 300, height: 300, filename: 'a.png' };
    const problems = provider.validate(
      { content: 'x'.repeat(1501), media: [photo, { ...photo, id: 'm2' }] },
      GOOGLE_BUSINESS_LIMITS,
    );
    expect(problems.map((p) => p.field).sort()).toEqual(['content', 'mediaIds']);
  });

  it('answers no figures without calling Google', async () => {
    expect((await provider.fetchMetrics()).metrics).toEqual({
      likes: null,
      reposts: null,
      replies: null,
      quotes: null,
      impressions: null,
      raw: {},
    });
  });

  it('reads the account and location names, and refuses other names', () => {
    expect(
      parseGoogleBusinessCredentials({
        accessToken: 'a',
        apiBaseUrl: 'https://mybusiness.googleapis.com',
        accountName: 'accounts/1',
        locationName: 'locations/2',
      }),
    ).toEqual(expect.objectContaining({ accountName: 'accounts/1', locationName: 'locations/2' }));
    expect(() =>
      parseGoogleBusinessCredentials({
        accessToken: 'a',
        apiBaseUrl: 'https://mybusiness.googleapis.com',
        locationName: 'accounts/1/locations/2',
      }),
    ).toThrow(/location name/);
  });
});
