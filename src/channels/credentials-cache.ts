/** Channels whose opened credentials are kept, at most. */
const MAX_ENTRIES = 10_000;
/** How long opened credentials stay in memory without being used again. */
const IDLE_MS = 10 * 60_000;

interface Entry {
  /** The stored (sealed) form they were opened from, and the associated data it was opened with. */
  sealed: string;
  aad: string;
  value: Readonly<Record<string, unknown>>;
  usedAt: number;
}

/**
 * Opened (decrypted, parsed) credentials of channels, so publishing does not decrypt and parse the
 * same credentials for every target: that was about a tenth of the publisher's Node CPU per target.
 *
 * An entry is used only for the exact stored form it was opened from: the sealed value is compared,
 * and every seal has a fresh IV, so credentials changed by any process (refresh, reconnect, revoke)
 * miss the cache without being told. Writes in this process also drop the channel's entry, so
 * revoked or replaced secrets do not linger here; so do entries idle for ten minutes, and the least
 * recently used beyond 10,000 channels. Values are deeply frozen: every caller shares them. Nothing
 * here is ever logged.
 */
export class CredentialsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly idleMs = IDLE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The credentials opened from `sealed` with `aad`, or `open()`'s result, kept for next time. */
  get(
    channelId: string,
    sealed: string,
    aad: string,
    open: () => Record<string, unknown>,
  ): Readonly<Record<string, unknown>> {
    const now = this.now();
    const entry = this.entries.get(channelId);
    this.entries.delete(channelId); // re-inserted below: Map order is the recency order
    if (entry && entry.sealed === sealed && entry.aad === aad && now - entry.usedAt < this.idleMs) {
      entry.usedAt = now;
      this.entries.set(channelId, entry);
      return entry.value;
    }
    const value = deepFreeze(open());
    this.entries.set(channelId, { sealed, aad, value, usedAt: now });
    this.evict(now);
    return value;
  }

  /** Drops what is kept for these channels (their credentials were written, cleared or revoked). */
  forget(...channelIds: string[]): void {
    for (const id of channelIds) this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }

  private evict(now: number): void {
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && now - entry.usedAt < this.idleMs) break;
      this.entries.delete(id);
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
