import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';
import { AppEnv, publicBaseUrlOf } from './app.config';
import { toBool, validateEnv } from './validate-env';

export class ConsoleEnv {
  /**
   * Public address of the console, used in printed setup and invitation links.
   * Default {PUBLIC_BASE_URL}/console (so one setting names the service's address).
   */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CONSOLE_URL?: string = undefined;

  /** First start without any user prints a one-time link that creates the first owner. */
  @Transform(toBool)
  @IsBoolean()
  CONSOLE_SETUP_LINK: boolean = true;

  /** A session unused this long ends. */
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 60)
  CONSOLE_SESSION_IDLE_MINUTES: number = 60;

  /** A session ends this long after sign-in, used or not. */
  @IsInt()
  @Min(1)
  @Max(90 * 24)
  CONSOLE_SESSION_ABSOLUTE_HOURS: number = 12;

  /** Setup and invitation links stay valid this long. */
  @IsInt()
  @Min(1)
  @Max(30 * 24)
  CONSOLE_LINK_TTL_HOURS: number = 72;

  /** Failed sign-ins from one address per 15 minutes before 429. */
  @IsInt()
  @Min(1)
  LOGIN_FAILURES_PER_ADDRESS: number = 20;

  /** Failed sign-ins for one email per 15 minutes before 429 (whether the account exists or not). */
  @IsInt()
  @Min(1)
  LOGIN_FAILURES_PER_ACCOUNT: number = 5;
}

export const consoleConfig = registerAs('console', () => {
  const env = validateEnv(ConsoleEnv);
  const url = (env.CONSOLE_URL ?? `${publicBaseUrlOf(validateEnv(AppEnv))}/console`).replace(/\/+$/, '');
  return {
    url,
    setupLink: env.CONSOLE_SETUP_LINK,
    idleMs: env.CONSOLE_SESSION_IDLE_MINUTES * 60_000,
    absoluteMs: env.CONSOLE_SESSION_ABSOLUTE_HOURS * 3_600_000,
    linkTtlMs: env.CONSOLE_LINK_TTL_HOURS * 3_600_000,
    loginFailuresPerAddress: env.LOGIN_FAILURES_PER_ADDRESS,
    loginFailuresPerAccount: env.LOGIN_FAILURES_PER_ACCOUNT,
    loginWindowMs: 15 * 60_000,
  };
});
export type ConsoleConfig = ReturnType<typeof consoleConfig>;
