import { createHmac } from 'node:crypto';
import { MediaUrlSigner } from './media-url-signer';

const ID = '0b7c3a52-5d1e-4c3b-9a35-0f3a4a1c2b3d';
const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(40);
const NOW = 1_800_000_000_000;

describe('MediaUrlSigner', () => {
  const at = (ms: number) => () => ms;

  it('signs base64url(HMAC-SHA256) of the id, the expiry and the variant with the first key', () => {
    const signer = new MediaUrlSigner([KEY_A, KEY_B], 3600, at(NOW));
    const q = signer.sign(ID, 'jpeg');
    expect(q.expires).toBe(String(NOW / 1000 + 3600));
    const expected = createHmac('sha256', KEY_A)
      .update(`sps-media-content/v1\n${ID}\n${q.expires}\njpeg`)
      .digest('base64url');
    expect(q).toEqual({ expires: q.expires, variant: 'jpeg', signature: expected });
    expect(q.signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.sign(ID)).not.toHaveProperty('variant');
  });

  it('signs a permanent URL the same at every call, valid years later with any listed key, and for its item only', () => {
    const signer = new MediaUrlSigner([KEY_A], 60, at(NOW));
    const query = Object.fromEntries(new URLSearchParams(signer.permanentQueryString(ID)));
    expect(query.expires).toBe('permanent');
    expect(new MediaUrlSigner([KEY_A], 60, at(NOW + 1000)).permanentQueryString(ID)).toBe(
      signer.permanentQueryString(ID),
    );
    const years = NOW + 10 * 365 * 24 * 3600 * 1000;
    expect(new MediaUrlSigner([KEY_B, KEY_A], 60, at(years)).verify(ID, query)).toEqual({
      ok: true,
      expires: years / 1000 + 60,
      variant: null,
    });
    expect(signer.verify(ID.replace('0b7c', '1b7c'), query)).toEqual({ ok: false, reason: 'invalid' });
    // A dated signature does not pass as a permanent one.
    const dated = signer.sign(ID);
    expect(signer.verify(ID, { expires: 'permanent', signature: dated.signature })).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(new MediaUrlSigner([KEY_B], 60, at(NOW)).verify(ID, query)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('accepts its own signature until the expiry, then refuses it as expired', () => {
    const signer = new MediaUrlSigner([KEY_A], 60, at(NOW));
    const q = signer.sign(ID);
    expect(signer.verify(ID, { ...q })).toEqual({ ok: true, expires: NOW / 1000 + 60, variant: null });
    expect(new MediaUrlSigner([KEY_A], 60, at(NOW + 59_999)).verify(ID, { ...q }).ok).toBe(true);
    expect(new MediaUrlSigner([KEY_A], 60, at(NOW + 60_000)).verify(ID, { ...q })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('refuses a tampered id, expiry, variant or signature', () => {
    const signer = new MediaUrlSigner([KEY_A], 3600, at(NOW));
    const q = signer.sign(ID, 'jpeg');
    expect(signer.verify(ID.replace('0b7c', '0b7d'), { ...q }).ok).toBe(false);
    expect(signer.verify(ID, { ...q, expires: String(Number(q.expires) - 1) })).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(signer.verify(ID, { ...q, variant: 'png' })).toEqual({ ok: false, reason: 'invalid' });
    expect(signer.verify(ID, { expires: q.expires, signature: q.signature })).toEqual({ ok: false, reason: 'invalid' });
    const flipped = (q.signature[0] === 'A' ? 'B' : 'A') + q.signature.slice(1);
    expect(signer.verify(ID, { ...q, signature: flipped })).toEqual({ ok: false, reason: 'invalid' });
  });

  it('accepts only the canonical spelling of a signature: the unused low bits of its last character must be zero', () => {
    const signer = new MediaUrlSigner([KEY_A], 3600, at(NOW));
    const q = signer.sign(ID);
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // 43 characters carry 258 bits for a 256-bit MAC: the last one has 4 spellings that decode alike.
    const last = ALPHABET.indexOf(q.signature[42]);
    const spellings = [0, 1, 2, 3].map((low) => q.signature.slice(0, 42) + ALPHABET[(last & ~3) | low]);
    for (const s of spellings)
      expect(Buffer.from(s, 'base64url').equals(Buffer.from(q.signature, 'base64url'))).toBe(true);
    const accepted = spellings.filter((s) => signer.verify(ID, { ...q, signature: s }).ok);
    expect(accepted).toEqual([q.signature]);
    for (const s of spellings.filter((x) => x !== q.signature)) {
      expect(signer.verify(ID, { ...q, signature: s })).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('treats the id case-insensitively (UUIDs in either case name one item)', () => {
    const signer = new MediaUrlSigner([KEY_A], 3600, at(NOW));
    expect(signer.verify(ID.toUpperCase(), { ...signer.sign(ID) }).ok).toBe(true);
  });

  it('verifies with every key (rotation) but refuses a key it does not hold', () => {
    const oldSigner = new MediaUrlSigner([KEY_B], 3600, at(NOW));
    const rotated = new MediaUrlSigner([KEY_A, KEY_B], 3600, at(NOW));
    const other = new MediaUrlSigner(['c'.repeat(32)], 3600, at(NOW));
    const q = oldSigner.sign(ID);
    expect(rotated.verify(ID, { ...q }).ok).toBe(true);
    expect(other.verify(ID, { ...q })).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses missing, repeated and malformed parameters without computing anything', () => {
    const signer = new MediaUrlSigner([KEY_A], 3600, at(NOW));
    const q = signer.sign(ID);
    expect(signer.verify(ID, {})).toEqual({ ok: false, reason: 'missing' });
    expect(signer.verify(ID, { expires: q.expires })).toEqual({ ok: false, reason: 'missing' });
    expect(signer.verify(ID, { ...q, signature: [q.signature, q.signature] })).toEqual({
      ok: false,
      reason: 'malformed',
    });
    for (const bad of [
      { ...q, expires: '-1' },
      { ...q, expires: '1e10' },
      { ...q, expires: '9'.repeat(13) },
      { ...q, signature: q.signature.slice(1) },
      { ...q, signature: `${q.signature}=` },
      { ...q, signature: Buffer.from(q.signature, 'base64url').toString('hex') },
      { ...q, variant: '../x' },
      { ...q, variant: '' },
      { ...q, variant: ['jpeg'] },
    ]) {
      expect(signer.verify(ID, bad)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('refuses an expiry beyond the configured lifetime (a lowered TTL applies to URLs already out)', () => {
    const long = new MediaUrlSigner([KEY_A], 7200, at(NOW)).sign(ID);
    expect(new MediaUrlSigner([KEY_A], 3600, at(NOW)).verify(ID, { ...long })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('builds the query string of a URL', () => {
    const signer = new MediaUrlSigner([KEY_A], 3600, at(NOW));
    const params = new URLSearchParams(signer.queryString(ID, 'jpeg'));
    expect([...params.keys()]).toEqual(['expires', 'variant', 'signature']);
    expect(signer.verify(ID, Object.fromEntries(params)).ok).toBe(true);
  });

  it('needs a key', () => {
    expect(() => new MediaUrlSigner([], 60)).toThrow();
  });
});
