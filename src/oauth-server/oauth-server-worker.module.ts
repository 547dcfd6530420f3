import { Module } from '@nestjs/common';
import { OAuthServerModule } from './oauth-server.module';
import { OAuthServerPurgeJob } from './oauth-server-purge.job';

/** The periodic purge of expired authorization codes and tokens: loaded only where the role runs workers. */
@Module({ imports: [OAuthServerModule], providers: [OAuthServerPurgeJob] })
export class OAuthServerWorkerModule {}
