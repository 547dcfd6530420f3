import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { RetentionJob } from './retention.job';

/** Periodic pruning of old events, webhook deliveries and console sessions; loaded only where the role runs workers. */
@Module({ imports: [WebhooksModule, UsersModule], providers: [RetentionJob] })
export class RetentionModule {}
