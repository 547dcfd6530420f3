import { OutboundHttp } from '../../common/http/outbound-http';
import { ContentRejectedError, CredentialsRevokedError, TransientProviderError } from '../provider.errors';
import { googleBusinessHost, googleErrorText, mapGoogleBusinessFailure } from './google-business-api.client';
import { parseGoogleBusinessCredentials } from './google-business.credentials';
import { GOOGLE_BUSINESS_LIMITS } from './google-business.limits';
import { compileOptionsSchema, optionsProblems } from '../options-schema';
import {
  GOOGLE_BUSINESS_OPTIONS_SCHEMA,
  googleBusinessOptionProblems,
  googleDateTime,
} from './google-business.options';
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

describe('Google Business Profile options', () => {
  const validate = compileOptionsSchema('google_business', GOOGLE_BUSINESS_OPTIONS_SCHEMA);
  const problems = (options: unknown) => optionsProblems(validate, options);
  const event = { title: 'Open day', schedule: { start: '2027-03-01T10:00', end: '2027-03-01T18:00' } };

  it('takes a STANDARD post with a button, an EVENT and an OFFER with their event', () => {
    expect(problems({})).toEqual([]);
    expect(
      problems({
        topicType: 'STANDARD',
        languageCode: 'pt-BR',
        callToAction: { actionType: 'BOOK', url: 'https://x.test' },
      }),
    ).toEqual([]);
    expect(problems({ topicType: 'EVENT', event, callToAction: { actionType: 'CALL' } })).toEqual([]);
    expect(
      problems({
        topicType: 'OFFER',
        event: { title: 'Spring sale', schedule: { start: '2027-03-01', end: '2027-03-31' } },
        offer: { couponCode: 'SPRING', redeemOnlineUrl: 'https://x.test/r', termsConditions: 'One per visit' },
      }),
    ).toEqual([]);
  });

  it('requires the event of an EVENT or OFFER, named at its path', () => {
    expect(problems({ topicType: 'EVENT' })).toEqual([{ field: 'event', message: 'is required' }]);
    expect(problems({ topicType: 'OFFER', offer: { couponCode: 'X' } })).toEqual([
      { field: 'event', message: 'is required' },
    ]);
    expect(problems({ topicType: 'EVENT', event: { title: 'x', schedule: { start: '2027-03-01' } } })).toEqual([
      { field: 'event.schedule.end', message: 'is required' },
    ]);
    expect(problems({ topicType: 'EVENT', event: { ...event, title: 't'.repeat(59) } })).toEqual([
      { field: 'event.title', message: 'must be at most 58 characters long' },
    ]);
  });

  it('keeps an offer to OFFER posts and an event to EVENT and OFFER posts', () => {
    expect(problems({ offer: { couponCode: 'X' } })).toEqual([{ field: 'topicType', message: 'is required' }]);
    expect(problems({ topicType: 'EVENT', event, offer: { couponCode: 'X' } })).toEqual([
      { field: 'topicType', message: 'must be "OFFER"' },
    ]);
    expect(problems({ topicType: 'STANDARD', event })).toEqual([
      { field: 'topicType', message: 'must be one of: EVENT, OFFER' },
    ]);
  });

  it('requires the URL of a button except CALL, and refuses unknown buttons and fields', () => {
    expect(problems({ callToAction: { actionType: 'SHOP' } })).toEqual([
      { field: 'callToAction.url', message: 'is required' },
    ]);
    expect(problems({ callToAction: { actionType: 'DANCE', url: 'https://x.test' } })).toEqual([
      { field: 'callToAction.actionType', message: 'must be one of: BOOK, ORDER, SHOP, LEARN_MORE, SIGN_UP, CALL' },
    ]);
    expect(problems({ callToAction: { actionType: 'CALL', url: 'https://x.test' } })).toEqual([]);
    expect(googleBusinessOptionProblems({ callToAction: { actionType: 'CALL', url: 'https://x.test' } })).toEqual([
      { field: 'options.callToAction.url', message: expect.stringContaining('left out for CALL') },
    ]);
    expect(problems({ topicType: 'ALERT' })[0].field).toBe('topicType');
  });

  it('checks the dates are real and the end is not before the start', () => {
    expect(googleBusinessOptionProblems({ event })).toEqual([]);
    expect(
      googleBusinessOptionProblems({ event: { title: 'x', schedule: { start: '2027-02-30', end: '2027-03-01' } } }),
    ).toEqual([{ field: 'options.event.schedule.start', message: 'is not a real date and time' }]);
    expect(
      googleBusinessOptionProblems({ event: { title: 'x', schedule: { start: '2027-03-02', end: '2027-03-01' } } }),
    ).toEqual([{ field: 'options.event.schedule.end', message: 'must not be before event.schedule.start' }]);
    // A date-only end runs to the end of its day.
    expect(
      googleBusinessOptionProblems({
        event: { title: 'x', schedule: { start: '2027-03-01T18:00', end: '2027-03-01' } },
      }),
    ).toEqual([]);
  });

  it("writes dates and times as Google's Date and TimeOfDay", () => {
    expect(googleDateTime('2027-03-01T09:30')).toEqual({
      date: { year: 2027, month: 3, day: 1 },
      time: { hours: 9, minutes: 30, seconds: 0, nanos: 0 },
    });
    expect(googleDateTime('2027-03-01').time).toBeNull();
  });
});
