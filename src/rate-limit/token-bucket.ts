/**
 * Token bucket arithmetic (docs/guide.md section 4, ADR 0002): capacity = burst, continuous refill of `perMinute` tokens a minute.
 * The Lua script in token-bucket.lua.ts is what runs; this is its readable model, and a property
 * test (test/foundation/token-bucket-script.e2e-spec.ts) checks that the script in a real Redis
 * makes the same decision as this model at every step of generated request sequences.
 */
export interface BucketState {
  tokens: number;
  /** Milliseconds since the epoch of the last update. */
  updatedAt: number;
}

export interface BucketConfig {
  capacity: number;
  perMinute: number;
}

export interface BucketDecision {
  allowed: boolean;
  state: BucketState;
  /** Whole requests that can be made right now. */
  remaining: number;
  /** Epoch ms at which the bucket is full again. */
  resetAt: number;
  /** Ms until one request is allowed (0 when allowed). */
  retryAfterMs: number;
}

export function refillRatePerMs(cfg: BucketConfig): number {
  return cfg.perMinute / 60_000;
}

export function takeToken(state: BucketState | null, now: number, cfg: BucketConfig): BucketDecision {
  const rate = refillRatePerMs(cfg);
  const elapsed = state ? Math.max(0, now - state.updatedAt) : 0;
  let tokens = state ? Math.min(cfg.capacity, state.tokens + elapsed * rate) : cfg.capacity;
  const allowed = tokens >= 1;
  if (allowed) tokens -= 1;
  const retryAfterMs = allowed ? 0 : Math.ceil((1 - tokens) / rate);
  return {
    allowed,
    state: { tokens, updatedAt: now },
    remaining: Math.floor(tokens),
    resetAt: now + Math.ceil((cfg.capacity - tokens) / rate),
    retryAfterMs,
  };
}
