import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { PrometheusRegistry } from './prometheus-registry.service';

/** `wait`: a poll found the network still processing (a video); the target is polled again. */
export type PublishOutcomeLabel = 'published' | 'failed' | 'retry' | 'wait';
export type WebhookOutcomeLabel = 'delivered' | 'failed' | 'retry';

/** Counters of work outcomes that features record: publish attempts and webhook delivery attempts. */
@Injectable()
export class OutcomeMetrics {
  private readonly publishOutcomes: Counter<'provider' | 'outcome'>;
  private readonly webhookOutcomes: Counter<'outcome'>;

  constructor(prometheus: PrometheusRegistry) {
    const registers = [prometheus.registry];
    this.publishOutcomes = new Counter({
      name: 'publish_outcomes_total',
      help: 'Publish attempts by provider and outcome (published, failed, retry, wait = network still processing)',
      labelNames: ['provider', 'outcome'] as const,
      registers,
    });
    this.webhookOutcomes = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, failed = given up, retry = will try again)',
      labelNames: ['outcome'] as const,
      registers,
    });
  }

  recordPublish(provider: string, outcome: PublishOutcomeLabel): void {
    this.publishOutcomes.inc({ provider, outcome });
  }

  recordWebhookDelivery(outcome: WebhookOutcomeLabel): void {
    this.webhookOutcomes.inc({ outcome });
  }
}
