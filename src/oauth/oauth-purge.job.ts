import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { oauthConfig } from '../config';
import { Scheduler } from '../scheduling/scheduler.service';
import { OAuthService, PurgeStats } from './oauth.service';

/** Name of the periodic job (Scheduler) that deletes expired authorizations. */
export const OAUTH_PURGE_JOB = 'oauth.purge';

/** Rows deleted per statement. */
const PURGE_BATCH = 1000;

/**
 * Deletes expired OAuth states and pending connections every OAUTH_PURGE_INTERVAL_SECONDS, one
 * process at a time (docs/adr/0009). Expired rows are refused anyway; this only reclaims space.
 */
@Injectable()
export class OAuthPurgeJob implements OnModuleInit {
  constructor(
    private readonly scheduler: Scheduler,
    private readonly oauth: OAuthService,
    @Inject(oauthConfig.KEY) private readonly cfg: ConfigType<typeof oauthConfig>,
  ) {}

  onModuleInit(): void {
    this.scheduler.every<PurgeStats>({
      name: OAUTH_PURGE_JOB,
      everyMs: this.cfg.purgeIntervalMs,
      run: (signal) => this.oauth.purgeExpired(PURGE_BATCH, () => signal.aborted),
      describe: (s) => (s.states + s.connections > 0 ? { ...s } : undefined),
    });
  }
}
