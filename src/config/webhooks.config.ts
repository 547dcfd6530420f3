import { registerAs } from '@nestjs/config';
import { IsInt, IsNumber, Matches, Max, Min } from 'class-validator';
import { validateEnv } from './validate-env';

/** The delivery retry schedule (docs/guide.md section 9, ADR 0005): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];

export class WebhooksEnv {
  /** Delays before each retry, in ms, comma-separated; its length is the number of retries. */
  @Matches(/^\s*\d+(\s*,\s*\d+)*\s*$/, { message: 'must be a comma-separated list of delays in milliseconds' })
  WEBHOOK_RETRY_SCHEDULE_MS: string = DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS.join(',');

  /** Random spread applied to every retry delay: 0.2 = +/-20%. */
  @IsNumber()
  @Min(0)
  @Max(0.5)
  WEBHOOK_RETRY_JITTER: number = 0.2;

  /** An endpoint whose attempts have all failed for this long is disabled (`failing`). Default 5 days. */
  @IsInt()
  @Min(1)
  WEBHOOK_DISABLE_AFTER_MS: number = 5 * 24 * 3600 * 1000;

  /** Deliveries sent in parallel by one worker process. */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_CONCURRENCY: number = 50;

  /** Period of the relay's catch-up sweep and of the reconciler of lost delivery jobs. */
  @IsInt()
  @Min(100)
  WEBHOOK_SWEEP_INTERVAL_MS: number = 2_000;

  /** POST /webhooks/{id}/replay at most once per endpoint in this window (429 otherwise). */
  @IsInt()
  @Min(0)
  WEBHOOK_REPLAY_COOLDOWN_SECONDS: number = 60;
}

export const webhooksConfig = registerAs('webhooks', () => {
  const env = validateEnv(WebhooksEnv);
  return {
    retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map((s) => Number(s.trim())),
    retryJitter: env.WEBHOOK_RETRY_JITTER,
    disableAfterMs: env.WEBHOOK_DISABLE_AFTER_MS,
    concurrency: env.WEBHOOK_CONCURRENCY,
    sweepIntervalMs: env.WEBHOOK_SWEEP_INTERVAL_MS,
    replayCooldownMs: env.WEBHOOK_REPLAY_COOLDOWN_SECONDS * 1000,
  };
});
export type WebhooksConfig = ReturnType<typeof webhooksConfig>;
