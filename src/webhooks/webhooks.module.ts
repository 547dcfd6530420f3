import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WEBHOOK_QUEUE } from './webhook-queue';
import { Webhook } from './webhook.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Subscriptions over HTTP and the delivery queue's registration (every role). */
@Module({
  imports: [
    TypeOrmModule.forFeature([Webhook, WebhookDelivery, WebhookDeliveryAttempt]),
    BullModule.registerQueue({ name: WEBHOOK_QUEUE }),
  ],
  controllers: [WebhooksController],
  providers: [WebhooksService],
  exports: [WebhooksService, TypeOrmModule, BullModule],
})
export class WebhooksModule {}
