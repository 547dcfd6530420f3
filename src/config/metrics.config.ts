import { registerAs } from '@nestjs/config';
import { IsInt, IsString, Max, Min, ValidateIf, MinLength } from 'class-validator';
import { validateEnv } from './validate-env';

export class MetricsEnv {
  /**
   * Bearer token for `GET /api/metrics` (Prometheus text format). Unset: the endpoint answers 404.
   * At least 16 characters; Prometheus sends it with `authorization: {credentials: ...}`.
   */
  @ValidateIf((env: MetricsEnv) => env.METRICS_TOKEN !== '')
  @IsString()
  @MinLength(16)
  METRICS_TOKEN: string = '';

  /**
   * Port on which an `APP_ROLE=worker` process serves its own `/metrics` (same token); 0 = none.
   * API processes serve theirs at `/api/metrics`.
   */
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_WORKER_PORT: number = 0;
}

export const metricsConfig = registerAs('metrics', () => {
  const env = validateEnv(MetricsEnv);
  return { token: env.METRICS_TOKEN || null, workerPort: env.METRICS_WORKER_PORT };
});
export type MetricsConfig = ReturnType<typeof metricsConfig>;
