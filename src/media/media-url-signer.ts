import { createHmac, timingSafeEqual } from 'node:crypto';

/** Bytes of an HMAC-SHA256; its base64url form has 43 characters. */
const MAC_BYTES = 32;
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const EXPIRES_PATTERN = /^\d{1,12}$/;
/**
 * The `expires` of a URL that does not expire, for media a published post links for good (Nostr notes
 * carry the URL itself; docs/adr/0056). Signed like the others, so it names one item (and variant) and
 * works while a key that signed it is listed and the item is kept.
 */
export const PERMANENT = 'permanent';
const VARIANT_PATTERN = /^[a-z0-9]{1,16}$/;
/** Clocks of several instances differ a little: an expiry this far past the longest lifetime still counts. */
const CLOCK_SKEW_SECONDS = 60;

/** The query of a signed media URL. */
export interface SignedMediaQuery {
  expires: string;
  signature: string;
  variant?: string;
}

export type MediaUrlVerdict =
  /** `expires`: Unix seconds at which the URL stops working. */
  | { ok: true; expires: number; variant: string | null }
  | { ok: false; reason: 'missing' | 'malformed' | 'invalid' | 'expired' };

/**
 * Signs and checks the public media URLs `GET /api/media/{id}/content?expires&signature[&variant]`
 * (docs/adr/0021). The signature is base64url(HMAC-SHA256(key, "sps-media-content/v1\n{id}\n{expires}\n{variant}")),
 * `variant` empty for the original bytes. The first key signs; every key verifies, so keys rotate.
 * An expiry further away than the configured lifetime is refused too: lowering MEDIA_URL_TTL_SECONDS
 * takes effect on URLs already handed out.
 */
export class MediaUrlSigner {
  private readonly keys: Buffer[];

  constructor(
    keys: readonly string[],
    readonly ttlSeconds: number,
    private readonly nowMs: () => number = Date.now,
  ) {
    if (keys.length === 0) throw new Error('MediaUrlSigner needs at least one key');
    this.keys = keys.map((k) => Buffer.from(k, 'utf8'));
  }

  /** A fresh signature of the item (or one of its variants), valid `ttlSeconds` from now. */
  sign(mediaId: string, variant: string | null = null): SignedMediaQuery {
    const expires = String(Math.floor(this.nowMs() / 1000) + this.ttlSeconds);
    const signature = mac(this.keys[0], mediaId, expires, variant).toString('base64url');
    return variant === null ? { expires, signature } : { expires, signature, variant };
  }

  /** The query string of a signed URL (`expires=...&variant=...&signature=...`). */
  queryString(mediaId: string, variant: string | null = null): string {
    const q = this.sign(mediaId, variant);
    return new URLSearchParams({
      expires: q.expires,
      ...(q.variant !== undefined ? { variant: q.variant } : {}),
      signature: q.signature,
    }).toString();
  }

  /** The query string of a URL that does not expire (`expires=permanent`), the same at every call. */
  permanentQueryString(mediaId: string, variant: string | null = null): string {
    const signature = mac(this.keys[0], mediaId, PERMANENT, variant).toString('base64url');
    return new URLSearchParams({
      expires: PERMANENT,
      ...(variant !== null ? { variant } : {}),
      signature,
    }).toString();
  }

  /**
   * Checks a URL's query. Every value is untrusted: anything but one string of the expected form (the
   * signature in its canonical base64url spelling) is refused before a MAC is computed. The comparison
   * is constant-time.
   */
  verify(mediaId: string, query: Record<string, unknown>): MediaUrlVerdict {
    const expires = single(query.expires);
    const signature = single(query.signature);
    const variantValue = query.variant === undefined ? null : single(query.variant);
    if (expires === undefined || signature === undefined) {
      return {
        ok: false,
        reason: query.expires === undefined || query.signature === undefined ? 'missing' : 'malformed',
      };
    }
    if (
      !(EXPIRES_PATTERN.test(expires) || expires === PERMANENT) ||
      !SIGNATURE_PATTERN.test(signature) ||
      variantValue === undefined ||
      (variantValue !== null && !VARIANT_PATTERN.test(variantValue))
    ) {
      return { ok: false, reason: 'malformed' };
    }
    const given = Buffer.from(signature, 'base64url');
    // 43 characters carry two bits more than the MAC: only the spelling with those bits zero (the one
    // sign() writes) is accepted, so one URL has one signature.
    if (given.length !== MAC_BYTES || given.toString('base64url') !== signature)
      return { ok: false, reason: 'malformed' };
    // Every key is tried (no early exit), so the time taken does not tell which key matched.
    let matched = false;
    for (const key of this.keys) {
      if (timingSafeEqual(mac(key, mediaId, expires, variantValue), given)) matched = true;
    }
    if (!matched) return { ok: false, reason: 'invalid' };
    const now = this.nowMs() / 1000;
    // A permanent URL is cached like a fresh one: for the configured lifetime.
    if (expires === PERMANENT) return { ok: true, expires: Math.floor(now) + this.ttlSeconds, variant: variantValue };
    const at = Number(expires);
    if (at <= now || at > now + this.ttlSeconds + CLOCK_SKEW_SECONDS) return { ok: false, reason: 'expired' };
    return { ok: true, expires: at, variant: variantValue };
  }
}

function mac(key: Buffer, mediaId: string, expires: string, variant: string | null): Buffer {
  return createHmac('sha256', key)
    .update(`sps-media-content/v1\n${mediaId.toLowerCase()}\n${expires}\n${variant ?? ''}`)
    .digest();
}

/** A query value given once as a string; undefined for arrays (a repeated parameter) and other shapes. */
function single(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
