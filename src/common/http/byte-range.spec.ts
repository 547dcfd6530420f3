import { parseRange } from './byte-range';

describe('parseRange', () => {
  it('reads one range of bytes, cutting an end past the file', () => {
    expect(parseRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=10-10', 1000)).toEqual({ start: 10, end: 10 });
    expect(parseRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=900-5000', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('Bytes = 1 - 2', 1000)).toEqual({ start: 1, end: 2 });
  });

  it('reads a suffix range: the last n bytes, the whole file when n is larger', () => {
    expect(parseRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
  });

  it('is unsatisfiable when the range starts past the end, for a zero suffix and on an empty file', () => {
    expect(parseRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=1000-2000', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(parseRange('bytes=-1', 0)).toBe('unsatisfiable');
  });

  it('ignores what it does not serve: no header, other units, several ranges, malformed or reversed ranges', () => {
    for (const header of [
      undefined,
      ['bytes=0-1', 'bytes=2-3'],
      'items=0-1',
      'bytes=0-1,5-6',
      'bytes=-',
      'bytes=a-b',
      'bytes=5-1',
      'bytes=0x10-20',
      'bytes=1234567890123456-',
    ]) {
      expect(parseRange(header, 1000)).toBeNull();
    }
  });
});
