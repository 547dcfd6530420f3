import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { appConfig } from '../config';
import { webhooksConfig } from '../config/webhooks.config';
import { WebhookDeliverer } from './webhook-deliverer.service';
import { WebhookQueue } from './webhook.queue';

/** Thin: a job names a delivery; the deliverer loads, sends and records it. */
@Injectable()
export class WebhookDeliveryProcessor implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDelivery');

  constructor(
    private readonly queue: WebhookQueue,
    private readonly deliverer: WebhookDeliverer,
    @Inject(webhooksConfig.KEY) private readonly cfg: ConfigType<typeof webhooksConfig>,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {}

  onModuleInit(): void {
    // The concurrency comes from config, hence process() here rather than a @Process decorator.
    this.queue
      .process(this.cfg.concurrency, (deliveryId) => this.deliverer.deliver(deliveryId))
      .catch((err: Error) => this.logger.error(`Webhook delivery processing stopped: ${err.message}`));
  }

  /** Lets attempts in flight finish (and be recorded) while the database is still open. */
  async beforeApplicationShutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.queue.close().catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, this.app.shutdownTimeoutMs))),
    ]);
    clearTimeout(timer);
  }
}
