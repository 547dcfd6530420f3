import { Module } from '@nestjs/common';
import { WebhookDeliverer } from './webhook-deliverer.service';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookDeliveryStore } from './webhook-delivery.store';
import { WebhookRelay } from './webhook-relay.service';
import { WebhooksModule } from './webhooks.module';

/** The outbox relay, the delivery processor and the reconciler: loaded where workers run. */
@Module({
  imports: [WebhooksModule],
  providers: [WebhookRelay, WebhookDeliveryStore, WebhookDeliverer, WebhookDeliveryProcessor],
})
export class WebhooksWorkerModule {}
