import { registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { validateEnv } from './validate-env';

export class RateLimitEnv {
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_PER_MINUTE: number = 100;

  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_BURST: number = 200;

  /** Failed authentications allowed per client address and minute before 429. */
  @IsInt()
  @Min(1)
  AUTH_FAILURES_PER_MINUTE: number = 60;
}

export const rateLimitConfig = registerAs('rateLimit', () => {
  const env = validateEnv(RateLimitEnv);
  return {
    perMinute: env.RATE_LIMIT_PER_MINUTE,
    burst: env.RATE_LIMIT_BURST,
    authFailuresPerMinute: env.AUTH_FAILURES_PER_MINUTE,
  };
});
export type RateLimitConfig = ReturnType<typeof rateLimitConfig>;
