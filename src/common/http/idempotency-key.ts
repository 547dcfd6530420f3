/**
 * The `Idempotency-Key` header's contract, read by the idempotency module (which enforces it) and by the
 * OpenAPI document (which describes it), so neither reads the other (docs/adr/0012).
 */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Set on a replayed answer. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** Longest key accepted, in characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
