import { Module } from '@nestjs/common';
import { OAuthModule } from './oauth.module';
import { OAuthPurgeJob } from './oauth-purge.job';
import { OAuthRefreshJob } from './oauth-refresh.job';

/**
 * The periodic purge of expired authorizations and renewal of idle channels' long-lived tokens:
 * loaded only where the role runs workers.
 */
@Module({ imports: [OAuthModule], providers: [OAuthPurgeJob, OAuthRefreshJob] })
export class OAuthWorkerModule {}
