import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { RedisClients } from '../redis/redis.module';
import { revokedKeyMarker } from './api-key.format';
import type { AuthContext } from './auth-context';

interface Entry {
  /** Null caches a miss (unknown or revoked key). */
  value: (Omit<AuthContext, 'credential'> & { expiresAt: number | null; lastUsedAt: number | null }) | null;
  /** A miss because the key (or the grant of an access token) was revoked: an access token's refusal says so. */
  revoked?: boolean;
}

const TTL_MS = 5_000;
const MAX_ENTRIES = 50_000;
const CHANNEL = 'auth:invalidate';
/** The revocation marker outlives every cache entry that may still hold the key. */
const MARKER_TTL_MS = 2 * TTL_MS;

/**
 * A short-lived in-process cache of key lookups (by hash). Entries live at most 5 s, so a
 * revocation reaches every instance within 5 s even if Redis is down. With Redis up it takes effect
 * on the very next request everywhere: revoking sets a marker key (`revokedKeyMarker`) that the
 * per-request rate-limit script checks in the same round trip, and a pub/sub message evicts the
 * entry from every instance (delivery is asynchronous, so the marker covers the moments before it
 * arrives). The process subscribes before it serves (start-up waits for the subscription), and
 * forgets every entry when its subscriber connection comes back after a drop, since revocations
 * published meanwhile never reached it.
 */
@Injectable()
export class ApiKeyCache implements OnModuleInit {
  private readonly logger = new Logger('ApiKeyCache');
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES, ttl: TTL_MS });

  constructor(private readonly redis: RedisClients) {}

  async onModuleInit(): Promise<void> {
    await this.redis.subscribe(
      CHANNEL,
      (hash) => this.entries.delete(hash),
      () => this.entries.clear(),
    );
  }

  get(hash: string): Entry | undefined {
    return this.entries.get(hash);
  }

  set(hash: string, value: Entry['value'], revoked = false): void {
    this.entries.set(hash, revoked ? { value, revoked } : { value });
  }

  async invalidate(hash: string, apiKeyId: string): Promise<void> {
    this.entries.delete(hash);
    try {
      await this.redis.client
        .multi()
        .set(revokedKeyMarker(apiKeyId), '1', 'PX', MARKER_TTL_MS)
        .publish(this.redis.channel(CHANNEL), hash)
        .exec();
    } catch (err) {
      this.logger.warn(
        `Could not broadcast key revocation (other instances expire it within 5 s): ${(err as Error).message}`,
      );
    }
  }
}
