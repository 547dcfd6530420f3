import { registerAs } from '@nestjs/config';
import { IsInt, Matches, Max, Min } from 'class-validator';
import { validateEnv } from './validate-env';

export class PublishingEnv {
  /** Targets published at once per worker process. */
  @IsInt()
  @Min(1)
  @Max(500)
  PUBLISH_CONCURRENCY: number = 50;

  /**
   * Claim statements and outcome transactions running at once per worker process. Jobs that finish
   * while they run join the next batch, so fewer in flight means bigger batches (1 measured fastest).
   */
  @IsInt()
  @Min(1)
  @Max(16)
  PUBLISH_BATCHES_IN_FLIGHT: number = 1;

  /** Delays before retries 1..n of a transient failure, in ms; attempts = n + 1. */
  @Matches(/^\d+(,\d+)*$/, { message: 'must be comma-separated milliseconds' })
  PUBLISH_RETRY_DELAYS_MS: string = '5000,30000,120000,600000,2700000';

  /** How often each worker re-enqueues what Postgres says is due but Redis does not hold. */
  @IsInt()
  @Min(1)
  PUBLISH_RECONCILE_SECONDS: number = 30;

  /** How long a claimed target may stay `publishing` before another worker may take it over. */
  @IsInt()
  @Min(5)
  PUBLISH_CLAIM_SECONDS: number = 120;

  /** Bull: how often stalled jobs (their worker died) are detected and re-run. */
  @IsInt()
  @Min(1000)
  QUEUE_STALLED_INTERVAL_MS: number = 30_000;
}

export const publishingConfig = registerAs('publishing', () => {
  const env = validateEnv(PublishingEnv);
  return {
    concurrency: env.PUBLISH_CONCURRENCY,
    batchesInFlight: env.PUBLISH_BATCHES_IN_FLIGHT,
    retryDelaysMs: env.PUBLISH_RETRY_DELAYS_MS.split(',').map(Number),
    reconcileMs: env.PUBLISH_RECONCILE_SECONDS * 1000,
    claimMs: env.PUBLISH_CLAIM_SECONDS * 1000,
    stalledIntervalMs: env.QUEUE_STALLED_INTERVAL_MS,
  };
});
export type PublishingConfig = ReturnType<typeof publishingConfig>;
