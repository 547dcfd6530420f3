import { Module } from '@nestjs/common';
import { OAuthModule } from './oauth.module';
import { OAuthPurgeJob } from './oauth-purge.job';

/** The periodic purge of expired authorizations: loaded only where the role runs workers. */
@Module({ imports: [OAuthModule], providers: [OAuthPurgeJob] })
export class OAuthWorkerModule {}
