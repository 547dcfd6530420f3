import fc from 'fast-check';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { TOKEN_BUCKET_LUA } from '../../src/rate-limit/token-bucket.lua';
import { BucketState, takeToken } from '../../src/rate-limit/token-bucket';
import { TEST_REDIS_URL } from '../setup/test-env';

/**
 * The Lua token bucket that production runs, in a real Redis, against the TypeScript model: for
 * generated configurations and request timings, every step gives the same allow/deny, remaining,
 * reset and retry-after.
 */
describe('token bucket script in Redis', () => {
  const redis = new Redis(TEST_REDIS_URL);
  const prefix = `tb-${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  const step = fc.record({
    gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 300_000 })),
  });
  const scenario = fc.record({
    capacity: fc.integer({ min: 1, max: 500 }),
    perMinute: fc.integer({ min: 1, max: 10_000 }),
    start: fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
    steps: fc.array(step, { minLength: 1, maxLength: 60 }),
  });

  it('makes the same decision as the model at every step', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ capacity, perMinute, start, steps }) => {
        const key = `${prefix}:${run++}`;
        let state: BucketState | null = null;
        let now = start;
        for (const { gapMs } of steps) {
          now += gapMs;
          const model = takeToken(state, now, { capacity, perMinute });
          state = model.state;
          const [allowed, remaining, resetAt, retryAfter] = (await redis.eval(
            TOKEN_BUCKET_LUA,
            1,
            key,
            capacity,
            perMinute,
            now,
          )) as [number, number, number, number];
          expect({ allowed: allowed === 1, remaining, resetAt, retryAfter }).toEqual({
            allowed: model.allowed,
            remaining: model.remaining,
            resetAt: model.resetAt,
            retryAfter: model.retryAfterMs,
          });
          // The key expires a second after the bucket is full again, counted on Redis's wall clock, while
          // this test moves its own clock: check the expiry, then keep the key, so a slow step on a busy
          // machine cannot expire a bucket the model still holds.
          const ttl = await redis.pttl(key);
          expect(ttl).toBeGreaterThan(0);
          expect(ttl).toBeLessThanOrEqual(model.resetAt - now + 1000);
          await redis.persist(key);
        }
      }),
      { seed: 20261123, numRuns: 150 },
    );
  });
});
