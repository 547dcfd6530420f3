import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { webhooksConfig } from '../config/webhooks.config';
import { ShutdownDeadline } from '../queue/shutdown-deadline';
import { WebhookDeliverer } from './webhook-deliverer.service';
import { WebhookQueue } from './webhook.queue';

/** Thin: a job names a delivery; the deliverer loads, sends and records it. */
@Injectable()
export class WebhookDeliveryProcessor implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDelivery');

  constructor(
    private readonly queue: WebhookQueue,
    private readonly deliverer: WebhookDeliverer,
    private readonly shutdown: ShutdownDeadline,
    @Inject(webhooksConfig.KEY) private readonly cfg: ConfigType<typeof webhooksConfig>,
  ) {}

  onModuleInit(): void {
    // The concurrency comes from config, hence process() here rather than a @Process decorator.
    this.queue
      .process(this.cfg.concurrency, (deliveryId) => this.deliverer.deliver(deliveryId))
      .catch((err: Error) => this.logger.error(`Webhook delivery processing stopped: ${err.message}`));
  }

  /** SIGTERM, first step (every processor at once): take no new job. */
  async onModuleDestroy(): Promise<void> {
    await this.shutdown.wait(this.queue.stopTaking());
  }

  /**
   * Lets attempts in flight finish and be recorded while the database is still open. One still running at
   * the shared deadline is released: its delivery stays claimed until the attempt lease ends, then the
   * reconciler enqueues it again (same webhook-id, so receivers can drop a repeat).
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.shutdown.wait(this.queue.close());
  }
}
