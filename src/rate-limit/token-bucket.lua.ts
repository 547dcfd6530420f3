import type Redis from 'ioredis';

/**
 * Atomic token bucket in Redis. KEYS[1] = bucket hash, KEYS[2] (optional) = the key's revocation
 * marker; ARGV = capacity, perMinute[, nowMs].
 * Uses the server clock (TIME), so every instance agrees on time; `nowMs` exists for the property
 * test that runs this script against takeToken() in token-bucket.ts, step by step.
 * Returns {allowed (0/1), remaining, resetAtMs, retryAfterMs}, or {-1, 0, 0, 0} when the marker
 * exists: the key was revoked moments ago and this instance may still hold it in its cache (see
 * ApiKeyCache). The token count is stored with 17 significant digits, so a stored double reads back
 * exactly.
 */
export const TOKEN_BUCKET_LUA = `
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then return {-1, 0, 0, 0} end
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2]) / 60000
local now
if ARGV[3] then
  now = tonumber(ARGV[3])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local data = redis.call('HMGET', KEYS[1], 't', 'u')
local tokens = capacity
if data[1] then
  local elapsed = now - tonumber(data[2])
  if elapsed < 0 then elapsed = 0 end
  tokens = math.min(capacity, tonumber(data[1]) + elapsed * rate)
end
local allowed = 0
if tokens >= 1 then
  allowed = 1
  tokens = tokens - 1
end
local retry = 0
if allowed == 0 then retry = math.ceil((1 - tokens) / rate) end
local full = math.ceil((capacity - tokens) / rate)
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'u', now)
redis.call('PEXPIRE', KEYS[1], full + 1000)
return {allowed, math.floor(tokens), now + full, retry}
`;

/** A Redis client on which TOKEN_BUCKET_LUA is defined as `takeToken` (defineCommand, two keys). */
export type BucketRedis = Redis & {
  takeToken(
    bucket: string,
    revokedMarker: string,
    capacity: number,
    perMinute: number,
  ): Promise<[allowed: number, remaining: number, resetAtMs: number, retryAfterMs: number]>;
};
