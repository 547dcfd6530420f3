import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from '../redis/redis.module';

/** Requests per minute to the hosted connect pages from one client address (any link). */
export const CONNECT_PAGE_PER_IP = 60;
/** Requests per minute to one link's pages (any address): a person needs a handful. */
export const CONNECT_PAGE_PER_LINK = 30;
const WINDOW_MS = 60_000;
/** A request never waits on Redis longer than this; past it, the request is let through. */
const REDIS_WAIT_MS = 250;

/**
 * The hosted connect pages are public (no key, no session): a fixed one-minute window per client
 * address and per link keeps one client from hammering them or guessing at tokens, and one shared
 * link from being scripted. Fails open (and says so once a minute) when Redis does not answer.
 */
@Injectable()
export class ConnectPageLimiter {
  private readonly logger = new Logger('ConnectPage');
  private lastWarning = 0;

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** Counts the request; answers the seconds to wait when either window is full, else 0. */
  async take(ip: string, linkKey: string | null): Promise<number> {
    const keys: Array<[string, number]> = [[`connect-page:ip:${ip}`, CONNECT_PAGE_PER_IP]];
    if (linkKey) keys.push([`connect-page:link:${linkKey.slice(0, 32)}`, CONNECT_PAGE_PER_LINK]);
    try {
      let timer: NodeJS.Timeout | undefined;
      const counted = await Promise.race([
        Promise.all(keys.map(([key]) => this.count(key))),
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), REDIS_WAIT_MS))),
      ]);
      clearTimeout(timer);
      if (!counted) throw new Error('Redis did not answer in time');
      const over = counted.filter((c, i) => c.hits > keys[i][1]);
      return over.length === 0 ? 0 : Math.max(1, Math.ceil(Math.max(...over.map((c) => c.ttlMs)) / 1000));
    } catch (err) {
      if (Date.now() - this.lastWarning > WINDOW_MS) {
        this.lastWarning = Date.now();
        this.logger.warn(`Connect page rate limit failing open: ${(err as Error).message}`);
      }
      return 0;
    }
  }

  private async count(key: string): Promise<{ hits: number; ttlMs: number }> {
    const result = await this.redis.multi().incr(key).pexpire(key, WINDOW_MS, 'NX').pttl(key).exec();
    const hits = Number(result?.[0]?.[1] ?? 0);
    const ttlMs = Number(result?.[2]?.[1] ?? WINDOW_MS);
    return { hits, ttlMs: ttlMs > 0 ? ttlMs : WINDOW_MS };
  }
}
