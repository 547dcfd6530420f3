import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS } from '../redis/redis.module';
import { HealthDto } from './health.dto';

const TIMEOUT_MS = 1_000;

function within<T>(p: Promise<T>): Promise<boolean> {
  return Promise.race([
    p.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), TIMEOUT_MS).unref()),
  ]).catch(() => false);
}

@Injectable()
export class HealthService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async check(): Promise<HealthDto> {
    const [db, redis] = await Promise.all([within(this.dataSource.query('SELECT 1')), within(this.redis.ping())]);
    return {
      status: db && redis ? 'ok' : 'error',
      checks: { database: db ? 'up' : 'down', redis: redis ? 'up' : 'down' },
    };
  }
}
