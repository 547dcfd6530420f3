import { registerAs } from '@nestjs/config';
import { Matches } from 'class-validator';
import { validateEnv } from './validate-env';

export class RedisEnv {
  @Matches(/^rediss?:\/\/.+/, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL: string = 'redis://localhost:6379';

  /** Prefix of every key this service writes, so several deployments (or test files) can share a Redis. */
  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'must be 1-64 characters of A-Z a-z 0-9 : _ -' })
  REDIS_PREFIX: string = 'sps';
}

export const redisConfig = registerAs('redis', () => {
  const env = validateEnv(RedisEnv);
  const url = new URL(env.REDIS_URL);
  const db = url.pathname && url.pathname !== '/' ? Number(url.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new Error(`Invalid configuration: REDIS_URL has a bad database index`);
  return {
    url: env.REDIS_URL,
    prefix: env.REDIS_PREFIX,
    host: url.hostname || 'localhost',
    port: url.port ? Number(url.port) : 6379,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db,
    tls: url.protocol === 'rediss:',
  };
});
export type RedisConfig = ReturnType<typeof redisConfig>;
