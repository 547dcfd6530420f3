import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { oauthConfig } from '../config';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { OAuthService, PurgeStats } from './oauth.service';

/** Name of the periodic job (PeriodicJobs) that deletes expired authorizations. */
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
    private readonly periodicJobs: PeriodicJobs,
    private readonly oauth: OAuthService,
    @Inject(oauthConfig.KEY) private readonly cfg: ConfigType<typeof oauthConfig>,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every<PurgeStats>({
      name: OAUTH_PURGE_JOB,
      everyMs: this.cfg.purgeIntervalMs,
      run: (signal) => this.oauth.purgeExpired(PURGE_BATCH, () => signal.aborted),
      describe: (s) => (s.states + s.connections > 0 ? { ...s } : undefined),
    });
  }
}
