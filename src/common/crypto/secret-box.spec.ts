import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox (AES-256-GCM)', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips and never stores the plaintext', () => {
    const sealed = box.sealJson({ accessToken: 'tok-secret' }, 'ws:ch');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(sealed).not.toContain('tok-secret');
    expect(box.openJson(sealed, 'ws:ch')).toEqual({ accessToken: 'tok-secret' });
  });

  it('uses a fresh IV each time', () => {
    expect(box.seal('x', 'a')).not.toBe(box.seal('x', 'a'));
  });

  it('refuses a ciphertext moved to another row (associated data)', () => {
    const sealed = box.seal('secret', 'ws1:ch1');
    expect(() => box.open(sealed, 'ws2:ch1')).toThrow();
  });

  it('refuses a tampered ciphertext', () => {
    const sealed = box.seal('secret', 'a');
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => box.open(tampered, 'a')).toThrow();
  });

  it('decrypts rows sealed with a previous key version after rotation', () => {
    const oldKey = randomBytes(32);
    const old = new SecretBox(oldKey, 'v1');
    const sealed = old.seal('secret', 'a');
    const rotated = new SecretBox(randomBytes(32), 'v2', { v1: oldKey });
    expect(rotated.open(sealed, 'a')).toBe('secret');
    expect(rotated.seal('x', 'a').startsWith('v2.')).toBe(true);
  });

  it('opens, but never seals with, an open-only key (the former development key), and says so once', () => {
    const legacy = Buffer.alloc(32);
    const old = new SecretBox(legacy).seal('sealed on a development database', 'ws:ch');
    const onOpenOnly = jest.fn();
    const box = new SecretBox(randomBytes(32), 'v1', {}, { openOnly: [legacy], onOpenOnly });
    expect(box.open(old, 'ws:ch')).toBe('sealed on a development database');
    expect(box.open(old, 'ws:ch')).toBe('sealed on a development database');
    expect(onOpenOnly).toHaveBeenCalledTimes(1);
    expect(() => box.open(old, 'ws:other')).toThrow();
    expect(() => new SecretBox(legacy).open(box.seal('new', 'a'), 'a')).toThrow();
  });
});
