import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookQueue } from './webhook.queue';
import { Webhook } from './webhook.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhookRedeliveryService } from './webhook-redelivery.service';
import { WebhookDeliveryLogStore } from './webhook-delivery-log.store';
import { WebhooksService } from './webhooks.service';
import { WebhooksStore } from './webhooks.store';

/** Subscriptions over HTTP and the delivery queue's registration (every role). */
@Module({
  imports: [TypeOrmModule.forFeature([Webhook, WebhookDelivery, WebhookDeliveryAttempt]), WebhookQueue.registration()],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhooksStore, WebhookDeliveryLogStore, WebhookQueue, WebhookRedeliveryService],
  exports: [WebhooksService, WebhookDeliveryLogStore, WebhookQueue, TypeOrmModule],
})
export class WebhooksModule {}
