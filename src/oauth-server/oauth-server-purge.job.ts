import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { mcpOAuthConfig } from '../config';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { OAuthServerPurgeStats, OAuthServerService } from './oauth-server.service';

/** Name of the periodic job (PeriodicJobs) that deletes expired authorization codes and tokens. */
export const OAUTH_SERVER_PURGE_JOB = 'oauth-server.purge';

/** Rows deleted per statement. */
const PURGE_BATCH = 1000;

/**
 * Deletes the authorization server's expired codes and tokens every MCP_OAUTH_PURGE_INTERVAL_SECONDS,
 * one process at a time (docs/adr/0009). Expired rows are refused anyway; this only reclaims space, as
 * an agent refreshing hourly leaves a token pair a day behind it.
 */
@Injectable()
export class OAuthServerPurgeJob implements OnModuleInit {
  constructor(
    private readonly periodicJobs: PeriodicJobs,
    private readonly server: OAuthServerService,
    @Inject(mcpOAuthConfig.KEY) private readonly cfg: ConfigType<typeof mcpOAuthConfig>,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every<OAuthServerPurgeStats>({
      name: OAUTH_SERVER_PURGE_JOB,
      everyMs: this.cfg.purgeIntervalMs,
      run: (signal) => this.server.purgeExpired(PURGE_BATCH, () => signal.aborted),
      describe: (s) => (s.codes + s.tokens > 0 ? { ...s } : undefined),
    });
  }
}
