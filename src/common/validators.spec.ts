import { isHttpUrl, isRfc3339, rfc3339Problem } from './validators';

describe('isRfc3339', () => {
  it.each([
    '2026-11-21T10:00:00Z',
    '2026-11-21t10:00:00z',
    '2028-02-29T23:59:59.999999Z',
    '2000-02-29T00:00:00Z',
    '2026-12-01T09:00:00.123456789+02:00',
    '2030-01-01T00:00:00+14:00',
    '2030-01-01T00:00:00-14:00',
    '0001-01-01T00:00:00Z',
    '0001-01-01T00:00:00-01:00',
    '9999-12-31T23:59:59.999Z',
    '9999-12-31T23:59:59.999999999+14:00',
  ])('takes %s', (value) => {
    expect(rfc3339Problem(value)).toBeNull();
  });

  it.each([
    ['2026-02-30T00:00:00Z', /calendar/],
    ['2026-02-29T00:00:00Z', /calendar/],
    ['1900-02-29T00:00:00Z', /calendar/],
    ['2026-04-31T00:00:00Z', /calendar/],
    ['2026-13-01T00:00:00Z', /calendar/],
    ['2026-00-10T00:00:00Z', /calendar/],
    ['2026-01-00T00:00:00Z', /calendar/],
    ['2026-01-01T24:00:00Z', /time of day/],
    ['2026-01-01T23:60:00Z', /time of day/],
    ['2026-12-31T23:59:60Z', /time of day/],
    ['2030-01-01T00:00:00+23:59', /offset/],
    ['2030-01-01T00:00:00+14:01', /offset/],
    ['2030-01-01T00:00:00-16:00', /offset/],
    ['2030-01-01T00:00:00+01:60', /offset/],
    ['0000-01-01T00:00:00Z', /calendar|0001/],
    ['0001-01-01T00:00:00+01:00', /0001 and 9999/],
    ['9999-12-31T23:59:59-01:00', /0001 and 9999/],
    ['2026-12-01T09:00:00', /RFC 3339/],
    ['+275760-09-13T00:00:00Z', /RFC 3339/],
    ['2026-1-01T00:00:00Z', /RFC 3339/],
    [20261201, /RFC 3339/],
  ])('refuses %s, saying why', (value, why) => {
    expect(rfc3339Problem(value)).toMatch(why);
    expect(isRfc3339(value)).toBe(false);
  });
});

describe('isHttpUrl', () => {
  it('refuses what the WHATWG parser refuses, such as an IPv6 zone id', () => {
    expect(isHttpUrl('http://[::1%25lo]:4199/x')).toBe(false);
    expect(isHttpUrl('https://[fe80::1%25eth0]/a.png')).toBe(false);
    expect(isHttpUrl('http://[::1]:4199/x')).toBe(true);
    expect(isHttpUrl('https://cdn.example.com/a.png')).toBe(true);
  });
});
