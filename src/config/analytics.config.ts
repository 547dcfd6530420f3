import { registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { validateEnv } from './validate-env';

export class AnalyticsEnv {
  /** Period of the metrics collection run (each worker ticks; one run at a time across workers). */
  @IsInt()
  @Min(1)
  @Max(86_400)
  ANALYTICS_INTERVAL_SECONDS: number = 300;

  /** Posts whose due targets are fetched and written together (one transaction per batch). */
  @IsInt()
  @Min(1)
  @Max(5_000)
  ANALYTICS_BATCH_SIZE: number = 250;

  /** Provider calls in flight at once per worker process during a collection. */
  @IsInt()
  @Min(1)
  @Max(500)
  ANALYTICS_CONCURRENCY: number = 32;

  /** POST /analytics/posts/:postId/refresh is accepted at most once per post in this many seconds. */
  @IsInt()
  @Min(1)
  @Max(3_600)
  ANALYTICS_REFRESH_COOLDOWN_SECONDS: number = 10;
}

export const analyticsConfig = registerAs('analytics', () => {
  const env = validateEnv(AnalyticsEnv);
  return {
    intervalMs: env.ANALYTICS_INTERVAL_SECONDS * 1000,
    batchSize: env.ANALYTICS_BATCH_SIZE,
    concurrency: env.ANALYTICS_CONCURRENCY,
    refreshCooldownMs: env.ANALYTICS_REFRESH_COOLDOWN_SECONDS * 1000,
  };
});
export type AnalyticsConfig = ReturnType<typeof analyticsConfig>;
