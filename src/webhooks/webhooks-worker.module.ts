import { Module } from '@nestjs/common';
import { WebhookDeliverer } from './webhook-deliverer.service';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookDeliveryStore } from './webhook-delivery.store';
import { WebhookRelay } from './webhook-relay.service';
import { WebhookSweepJob } from './webhook-sweep.job';
import { WebhooksModule } from './webhooks.module';

/** The outbox relay and its sweep (catch-up, reconciler), the delivery processor: loaded where workers run. */
@Module({
  imports: [WebhooksModule],
  providers: [WebhookRelay, WebhookSweepJob, WebhookDeliveryStore, WebhookDeliverer, WebhookDeliveryProcessor],
})
export class WebhooksWorkerModule {}
