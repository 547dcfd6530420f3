import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { Transactions } from '../database/transactions';
import { REDIS } from '../redis/redis.module';
import { HealthDto, ReadinessDto } from './health.dto';
import { STORAGE_PING, StoragePing } from './storage-ping.port';
import { VIDEO_TOOLS, VideoToolsCheck } from './video-tools.port';

const TIMEOUT_MS = 1_000;

function within<T>(p: Promise<T>): Promise<boolean> {
  return Promise.race([
    p.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), TIMEOUT_MS).unref()),
  ]).catch(() => false);
}

@Injectable()
export class HealthService implements OnModuleDestroy, BeforeApplicationShutdown, OnApplicationShutdown {
  private shuttingDown = false;

  constructor(
    private readonly database: Transactions,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(STORAGE_PING) private readonly storage: StoragePing,
    @Inject(VIDEO_TOOLS) private readonly videoTools: VideoToolsCheck,
  ) {}

  /**
   * Database and Redis (`GET /api/health`, kept for existing monitors), and whether ffprobe/ffmpeg
   * answer (`checks.video`). Video only informs: without it images still publish, so `status` stays
   * the database's and Redis's. The tools are checked once at start-up and remembered, so this adds
   * no child process to a health check (`unknown` while that first check has not finished).
   */
  async check(): Promise<HealthDto> {
    const [db, redis, video] = await Promise.all([this.databaseUp(), this.redisUp(), this.videoState()]);
    return {
      status: db && redis ? 'ok' : 'error',
      checks: { database: db ? 'up' : 'down', redis: redis ? 'up' : 'down', video },
    };
  }

  private async videoState(): Promise<'up' | 'down' | 'unknown'> {
    const answer = await Promise.race([
      this.videoTools.checkTools().then((s) => (s.available ? ('up' as const) : ('down' as const))),
      new Promise<'unknown'>((resolve) => setTimeout(() => resolve('unknown'), TIMEOUT_MS).unref()),
    ]).catch(() => 'down' as const);
    return answer;
  }

  /** Database, Redis and media storage, each within a second; not ready once shutdown has begun. */
  async ready(): Promise<ReadinessDto> {
    const [db, redis, storage] = await Promise.all([
      this.databaseUp(),
      this.redisUp(),
      within(Promise.resolve().then(() => this.storage.ping())),
    ]);
    return {
      status: db && redis && storage && !this.shuttingDown ? 'ok' : 'error',
      checks: { database: db ? 'up' : 'down', redis: redis ? 'up' : 'down', storage: storage ? 'up' : 'down' },
    };
  }

  /**
   * The first shutdown hook (SIGTERM): load balancers see 503 from now on, while the HTTP listener
   * still accepts for SHUTDOWN_DRAIN_DELAY_MS (HttpDrainService).
   */
  onModuleDestroy(): void {
    this.shuttingDown = true;
  }

  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
  }

  onApplicationShutdown(): void {
    this.shuttingDown = true;
  }

  private databaseUp(): Promise<boolean> {
    return within(this.database.ping());
  }

  private redisUp(): Promise<boolean> {
    return within(this.redis.ping());
  }
}
