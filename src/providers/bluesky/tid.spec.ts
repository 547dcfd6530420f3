import { deterministicTid, isValidTid, tidFromParts, tidToParts } from './tid';

describe('TID', () => {
  it('encodes timestamp and clock id in 13 base32-sortable characters', () => {
    expect(tidFromParts(0n, 0)).toBe('2222222222222');
    const tid = tidFromParts(1_700_000_000_000_000n, 1023);
    expect(tid).toHaveLength(13);
    expect(isValidTid(tid)).toBe(true);
    expect(tidToParts(tid)).toEqual({ timestampUs: 1_700_000_000_000_000n, clockId: 1023 });
  });

  it('sorts like its timestamp', () => {
    const a = tidFromParts(1_700_000_000_000_000n, 5);
    const b = tidFromParts(1_700_000_000_000_001n, 0);
    expect(a < b).toBe(true);
  });

  it('rejects out-of-range parts and invalid strings', () => {
    expect(() => tidFromParts(-1n, 0)).toThrow(RangeError);
    expect(() => tidFromParts(1n << 53n, 0)).toThrow(RangeError);
    expect(() => tidFromParts(0n, 1024)).toThrow(RangeError);
    expect(isValidTid('3jzfcijpj2z2a')).toBe(true);
    expect(isValidTid('kjzfcijpj2z2a')).toBe(false); // top bit set
    expect(isValidTid('3jzfcijpj2z2')).toBe(false);
    expect(isValidTid('3jzfcijpj2z21')).toBe(false);
  });

  describe('deterministicTid', () => {
    const createdAt = new Date('2025-03-01T12:34:56.789Z');

    it('is the same for the same publication and valid', () => {
      const a = deterministicTid(createdAt, 'target-123');
      expect(deterministicTid(new Date(createdAt.getTime()), 'target-123')).toBe(a);
      expect(isValidTid(a)).toBe(true);
    });

    it('keeps its timestamp within one second after createdAt and varies with the key', () => {
      const a = deterministicTid(createdAt, 'target-123');
      const b = deterministicTid(createdAt, 'target-124');
      expect(a).not.toBe(b);
      for (const tid of [a, b]) {
        const { timestampUs, clockId } = tidToParts(tid);
        const offset = timestampUs - BigInt(createdAt.getTime()) * 1000n;
        expect(offset >= 0n && offset < 1_000_000n).toBe(true);
        expect(clockId).toBeGreaterThanOrEqual(0);
        expect(clockId).toBeLessThan(1024);
      }
    });

    it('rarely collides for many keys at the same millisecond', () => {
      const tids = new Set(Array.from({ length: 2000 }, (_, i) => deterministicTid(createdAt, `key-${i}`)));
      expect(tids.size).toBe(2000);
    });

    it('refuses invalid dates', () => {
      expect(() => deterministicTid(new Date('nope'), 'k')).toThrow(RangeError);
    });
  });
});
