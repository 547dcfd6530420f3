import { registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { validateEnv } from './validate-env';

export class RetentionEnv {
  /** Delivered (dispatched) outbox events older than this are deleted; 0 keeps them forever. */
  @IsInt()
  @Min(0)
  RETENTION_EVENTS_DAYS: number = 30;

  /** Succeeded or cancelled webhook deliveries (with their attempts) older than this are deleted; 0 = never. */
  @IsInt()
  @Min(0)
  RETENTION_DELIVERIES_DAYS: number = 30;

  /** Failed webhook deliveries (given up) with their attempts are kept longer for investigation; 0 = never. */
  @IsInt()
  @Min(0)
  RETENTION_FAILED_DELIVERIES_DAYS: number = 90;

  /**
   * Console sessions that ended (signed out, expired, idle too long) more than this many days ago are
   * deleted; 0 = never.
   */
  @IsInt()
  @Min(0)
  RETENTION_SESSIONS_DAYS: number = 30;

  /** How often a worker runs the pruning (one worker at a time, under a Postgres advisory lock). */
  @IsInt()
  @Min(10)
  RETENTION_INTERVAL_SECONDS: number = 3600;

  /** Rows deleted per statement; each batch is its own short transaction. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  RETENTION_BATCH_SIZE: number = 1000;
}

export const retentionConfig = registerAs('retention', () => {
  const env = validateEnv(RetentionEnv);
  return {
    eventsDays: env.RETENTION_EVENTS_DAYS,
    deliveriesDays: env.RETENTION_DELIVERIES_DAYS,
    failedDeliveriesDays: env.RETENTION_FAILED_DELIVERIES_DAYS,
    sessionsDays: env.RETENTION_SESSIONS_DAYS,
    intervalMs: env.RETENTION_INTERVAL_SECONDS * 1000,
    batchSize: env.RETENTION_BATCH_SIZE,
  };
});
export type RetentionConfig = ReturnType<typeof retentionConfig>;
