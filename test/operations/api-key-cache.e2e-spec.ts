/**
 * The API key cache of two processes (two RedisClients + ApiKeyCache pairs, as two API processes hold) on a
 * Redis of the test's own, which the test stops and starts: a revocation on one evicts the entry on the
 * other through pub/sub, and a process whose subscriber connection dropped forgets every entry when it
 * comes back, since revocations published meanwhile never reached it.
 */
import { once } from 'node:events';
import { ApiKeyCache } from '../../src/auth/api-key.cache';
import { RedisClients } from '../../src/redis/redis.module';
import { PrivateRedis } from '../support/private-redis';
import { waitFor } from '../support/publishing-env';

describe('API key cache across processes', () => {
  let redis: PrivateRedis;
  let clients: RedisClients[] = [];
  let a: ApiKeyCache;
  let b: ApiKeyCache;
  const entry = (apiKeyId: string) => ({
    workspaceId: 'ws',
    organizationId: 'org',
    apiKeyId,
    rateLimitPerMinute: null,
    rateLimitBurst: null,
    scopes: ['*'],
    expiresAt: null,
    lastUsedAt: null,
  });

  beforeAll(async () => {
    redis = new PrivateRedis();
    await redis.start();
    const cfg = { url: redis.url, prefix: 'cache', host: '127.0.0.1', port: redis.port, db: 0, tls: false };
    clients = [new RedisClients(cfg as never), new RedisClients(cfg as never)];
    [a, b] = clients.map((c) => new ApiKeyCache(c));
    // Start-up resolves once subscribed: nothing published after it is missed.
    await Promise.all([a.onModuleInit(), b.onModuleInit()]);
    // The command connections (no offline queue) connect on their own; revocations need them up.
    await Promise.all(clients.map((c) => (c.client.status === 'ready' ? Promise.resolve() : once(c.client, 'ready'))));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.onApplicationShutdown()));
    await redis.destroy();
  });

  it('evicts an entry on the other process when a key is revoked on one', async () => {
    b.set('hash-1', entry('k1'));
    a.set('hash-1', entry('k1'));
    await a.invalidate('hash-1', 'k1');
    // The marker the rate-limit script checks, for the moments before the message arrives.
    const marker = await clients[0].client.pttl('auth:revoked:k1'); // the client adds its prefix
    expect(marker).toBeGreaterThan(5_000);
    expect(marker).toBeLessThanOrEqual(10_000);
    expect(a.get('hash-1')).toBeUndefined();
    await waitFor(
      async () => b.get('hash-1'),
      (e) => e === undefined,
      4_000,
      20,
    );
  });

  it('forgets every entry when its subscriber reconnects after an outage (revocations may have been lost)', async () => {
    await redis.stop();
    b.set('hash-2', entry('k2')); // cached while Redis is down: a revocation now never reaches b
    await a.invalidate('hash-2', 'k2'); // logs that it could not broadcast
    await redis.start();
    // Well within the 5 s an entry lives: the reconnection, not the expiry, empties the cache.
    await waitFor(
      async () => b.get('hash-2'),
      (e) => e === undefined,
      4_000,
      20,
    );
    // Pub/sub works again afterwards.
    b.set('hash-3', entry('k3'));
    await waitFor(
      async () => {
        await a.invalidate('hash-3', 'k3');
        return b.get('hash-3');
      },
      (e) => e === undefined,
      10_000,
      200,
    );
  });
});
