import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { oauthConfig } from '../config';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { ChannelCredentialsService, RenewalStats } from './channel-credentials.service';

/** Name of the periodic job (PeriodicJobs) that renews the long-lived tokens of idle channels. */
export const OAUTH_REFRESH_JOB = 'oauth.refresh';

/** Channels read per batch. */
const REFRESH_BATCH = 200;

/**
 * Every OAUTH_REFRESH_INTERVAL_SECONDS, one process at a time (docs/adr/0009): channels of networks
 * whose long-lived tokens must be renewed while valid (Threads, Instagram) and that were not used
 * in their renewal window get their token renewed, so an idle channel is not lost (docs/adr/0022).
 */
@Injectable()
export class OAuthRefreshJob implements OnModuleInit {
  constructor(
    private readonly periodicJobs: PeriodicJobs,
    private readonly credentials: ChannelCredentialsService,
    @Inject(oauthConfig.KEY) private readonly cfg: ConfigType<typeof oauthConfig>,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every<RenewalStats>({
      name: OAUTH_REFRESH_JOB,
      everyMs: this.cfg.refreshIntervalMs,
      run: (signal) => this.credentials.renewIdle(REFRESH_BATCH, () => signal.aborted),
      describe: (s) => (s.due > 0 ? { ...s } : undefined),
    });
  }
}
