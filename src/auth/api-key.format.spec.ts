import {
  checksum,
  crc32,
  displayPrefix,
  environmentOfKey,
  generateApiKey,
  generateOAuthToken,
  hashApiKey,
  isWellFormedApiKey,
  isWellFormedOAuthToken,
} from './api-key.format';

describe('API key format', () => {
  it('computes the standard CRC-32 (check value of "123456789" is CBF43926)', () => {
    expect(crc32('123456789').toString(16)).toBe('cbf43926');
  });

  it('generates spk_live_ keys by default whose checksum verifies', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^spk_live_[0-9A-Za-z]{36}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(environmentOfKey(key)).toBe('production');
  });

  it.each([
    ['production', 'spk_live_'],
    ['development', 'spk_dev_'],
    ['local', 'spk_local_'],
  ] as const)('tags %s keys with %s', (environment, tag) => {
    const key = generateApiKey(environment);
    expect(key.startsWith(tag)).toBe(true);
    expect(key).toHaveLength(tag.length + 36);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(environmentOfKey(key)).toBe(environment);
    expect(displayPrefix(key)).toBe(key.slice(0, tag.length + 8));
  });

  it('still accepts untagged keys made before environments (same checksum rule)', () => {
    const body = 'A'.repeat(30);
    const legacy = `spk_${body}${checksum(body)}`;
    expect(isWellFormedApiKey(legacy)).toBe(true);
    expect(environmentOfKey(legacy)).toBeNull();
    expect(displayPrefix(legacy)).toBe(legacy.slice(0, 12));
  });

  it('the checksum covers only the random part: moving it to another tag keeps it well formed', () => {
    const key = generateApiKey('development');
    const moved = key.replace('spk_dev_', 'spk_live_');
    expect(isWellFormedApiKey(moved)).toBe(true);
    expect(environmentOfKey(moved)).toBe('production');
    expect(hashApiKey(moved)).not.toBe(hashApiKey(key));
  });

  it('generates distinct keys', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey()));
    expect(keys.size).toBe(1000);
  });

  it('rejects a key with one character changed (checksum mismatch)', () => {
    const key = generateApiKey();
    const i = 15;
    const swapped = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(isWellFormedApiKey(swapped)).toBe(false);
  });

  it('rejects wrong prefix, unknown tag, length and alphabet', () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey(key.replace('spk_', 'sk_'))).toBe(false);
    expect(isWellFormedApiKey(key.replace('spk_live_', 'spk_test_'))).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key}a`)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, 20) + '-' + key.slice(21))).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('checksums are 6 base62 characters', () => {
    expect(checksum('abc')).toMatch(/^[0-9A-Za-z]{6}$/);
  });

  it('hashes with SHA-256', () => {
    expect(hashApiKey(generateApiKey())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('tells OAuth access and refresh tokens apart from each other and from keys, by shape and checksum', () => {
    const access = generateOAuthToken('access');
    const refresh = generateOAuthToken('refresh');
    expect(access).toMatch(/^spo_at_[0-9A-Za-z]{36}$/);
    expect(refresh).toMatch(/^spo_rt_[0-9A-Za-z]{36}$/);
    expect(isWellFormedOAuthToken(access, 'access')).toBe(true);
    expect(isWellFormedOAuthToken(refresh, 'refresh')).toBe(true);
    expect(isWellFormedOAuthToken(access, 'refresh')).toBe(false);
    expect(isWellFormedOAuthToken(refresh, 'access')).toBe(false);
    expect(isWellFormedApiKey(access)).toBe(false);
    expect(isWellFormedOAuthToken(generateApiKey(), 'access')).toBe(false);
    const last = access.at(-1) === 'a' ? 'b' : 'a';
    expect(isWellFormedOAuthToken(access.slice(0, -1) + last, 'access')).toBe(false);
  });
});
