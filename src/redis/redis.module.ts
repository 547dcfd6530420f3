import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import Redis, { RedisOptions } from 'ioredis';
import { redisConfig } from '../config';

export const REDIS = Symbol('REDIS');

export function redisOptions(cfg: ConfigType<typeof redisConfig>): RedisOptions {
  return {
    host: cfg.host,
    port: cfg.port,
    username: cfg.username,
    password: cfg.password,
    db: cfg.db,
    tls: cfg.tls ? {} : undefined,
  };
}

/**
 * The shared command connection for request-path work (rate limits, auth cache invalidation).
 * It fails fast instead of queueing while Redis is away, so callers can fail open within a second.
 */
@Injectable()
export class RedisClients implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly client: Redis;
  private subscriber?: Redis;

  constructor(@Inject(redisConfig.KEY) private readonly cfg: ConfigType<typeof redisConfig>) {
    this.client = new Redis({
      ...redisOptions(cfg),
      keyPrefix: `${cfg.prefix}:`,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 750,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
      lazyConnect: false,
    });
    this.client.on('error', (err) => this.logger.warn(`Redis connection problem: ${err.message}`));
  }

  /** Prefixed channel name for pub/sub (pub/sub channels are not prefixed by ioredis). */
  channel(name: string): string {
    return `${this.cfg.prefix}:${name}`;
  }

  /** A dedicated subscriber connection, created on first use. */
  subscribe(name: string, onMessage: (message: string) => void): void {
    if (!this.subscriber) {
      this.subscriber = new Redis({ ...redisOptions(this.cfg), retryStrategy: (t) => Math.min(t * 200, 2000) });
      this.subscriber.on('error', (err) => this.logger.warn(`Redis subscriber problem: ${err.message}`));
    }
    const channel = this.channel(name);
    void this.subscriber.subscribe(channel).catch((err: Error) => this.logger.warn(`subscribe failed: ${err.message}`));
    this.subscriber.on('message', (ch: string, msg: string) => {
      if (ch === channel) onMessage(msg);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.client.disconnect();
    this.subscriber?.disconnect();
  }
}

@Global()
@Module({
  providers: [RedisClients, { provide: REDIS, useFactory: (c: RedisClients) => c.client, inject: [RedisClients] }],
  exports: [RedisClients, REDIS],
})
export class RedisModule {}
