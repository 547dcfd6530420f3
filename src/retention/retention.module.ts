import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { RetentionJob } from './retention.job';

/** Periodic pruning of old events and webhook deliveries; loaded only where the role runs workers. */
@Module({ imports: [EventsModule, WebhooksModule], providers: [RetentionJob] })
export class RetentionModule {}
