import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import Redis, { RedisOptions } from 'ioredis';
import { redisConfig } from '../config';

export const REDIS = Symbol('REDIS');

/** How long start-up waits for a pub/sub subscription before going on without it. */
const SUBSCRIBE_WAIT_MS = 2_000;

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
  private readonly reconnectHandlers: Array<() => void> = [];

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

  /**
   * Subscribes to a channel on a dedicated connection (created on first use). Resolves once Redis has
   * confirmed the subscription, or after SUBSCRIBE_WAIT_MS when it does not answer (ioredis keeps trying
   * and subscribes again after every reconnection). Messages published while the connection was down are
   * lost: `onReconnect` runs each time it comes back, for the subscriber to forget what it may have missed.
   */
  async subscribe(name: string, onMessage: (message: string) => void, onReconnect?: () => void): Promise<void> {
    if (!this.subscriber) {
      const subscriber = new Redis({ ...redisOptions(this.cfg), retryStrategy: (t) => Math.min(t * 200, 2000) });
      subscriber.on('error', (err) => this.logger.warn(`Redis subscriber problem: ${err.message}`));
      let connectedBefore = false;
      subscriber.on('ready', () => {
        if (connectedBefore) for (const handler of this.reconnectHandlers) handler();
        connectedBefore = true;
      });
      this.subscriber = subscriber;
    }
    const channel = this.channel(name);
    if (onReconnect) this.reconnectHandlers.push(onReconnect);
    this.subscriber.on('message', (ch: string, msg: string) => {
      if (ch === channel) onMessage(msg);
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.subscriber.subscribe(channel).catch((err: Error) => this.logger.warn(`subscribe failed: ${err.message}`)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, SUBSCRIBE_WAIT_MS))),
    ]);
    clearTimeout(timer);
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
