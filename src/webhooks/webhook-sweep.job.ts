import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { webhooksConfig } from '../config/webhooks.config';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { WebhookRelay } from './webhook-relay.service';

/** Name of the periodic job (PeriodicJobs): relay catch-up and reconciliation of lost delivery jobs. */
export const SWEEP_JOB = 'webhooks.sweep';

/**
 * Registers the relay's catch-up as the periodic job `webhooks.sweep`, every WEBHOOK_SWEEP_INTERVAL_MS,
 * one process at a time: events committed while no relay listened are relayed, and pending deliveries
 * whose Bull job went missing are enqueued again (WebhookRelay.sweep).
 */
@Injectable()
export class WebhookSweepJob implements OnModuleInit {
  constructor(
    private readonly periodicJobs: PeriodicJobs,
    private readonly relay: WebhookRelay,
    @Inject(webhooksConfig.KEY) private readonly cfg: ConfigType<typeof webhooksConfig>,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every({ name: SWEEP_JOB, everyMs: this.cfg.sweepIntervalMs, run: () => this.relay.sweep() });
  }
}
