import { checksum, crc32, displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key.format';

describe('API key format', () => {
  it('computes the standard CRC-32 (check value of "123456789" is CBF43926)', () => {
    expect(crc32('123456789').toString(16)).toBe('cbf43926');
  });

  it('generates 40-character spk_ keys whose checksum verifies', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^spk_[0-9A-Za-z]{36}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('generates distinct keys', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
  });

  it('rejects a key with one character changed (checksum mismatch)', () => {
    const key = generateApiKey();
    const i = 10;
    const swapped = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(isWellFormedApiKey(swapped)).toBe(false);
  });

  it('rejects wrong prefix, length and alphabet', () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey(key.replace('spk_', 'sk_'))).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key}a`)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, 20) + '-' + key.slice(21))).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('checksums are 6 base62 characters', () => {
    expect(checksum('abc')).toMatch(/^[0-9A-Za-z]{6}$/);
  });

  it('hashes with SHA-256 and exposes only a short display prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });
});
