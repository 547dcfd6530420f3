import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { AppError } from '../common/errors';
import { webhooksConfig } from '../config/webhooks.config';
import { EventOutboxStore } from '../events/event-outbox.store';
import { afterCommit } from '../database/request-transaction';
import { RedeliveryDto, ReplayResultDto } from './dto/webhook-redelivery.dto';
import { DueAttempt, WebhookQueue } from './webhook.queue';
import { WebhookDeliveryLogStore } from './webhook-delivery-log.store';
import { Webhook } from './webhook.entity';
import { WebhooksStore } from './webhooks.store';
import { WebhooksService } from './webhooks.service';

/** The widest time range one replay may cover. */
export const MAX_REPLAY_RANGE_MS = 7 * 24 * 3600 * 1000;
/** The most events one replay queues; the answer says where to resume. */
export const MAX_REPLAY_EVENTS = 1000;

/**
 * Sending settled deliveries again: one delivery on request (redeliver), or every event of a time
 * range (replay) for a receiver that was down. Both reuse the delivery row of (endpoint, event),
 * so the event keeps its `webhook-id` and each new attempt shows up in the delivery log with the
 * next attempt number.
 */
@Injectable()
export class WebhookRedeliveryService {
  private readonly logger = new Logger('WebhookRedelivery');

  constructor(
    private readonly deliveries: WebhookDeliveryLogStore,
    private readonly webhookRows: WebhooksStore,
    private readonly webhooks: WebhooksService,
    private readonly queue: WebhookQueue,
    private readonly outbox: EventOutboxStore,
    @Inject(webhooksConfig.KEY) private readonly cfg: ConfigType<typeof webhooksConfig>,
  ) {}

  /**
   * 404 for an unknown delivery. The delivery log lists attempts, so an attempt's id is an easy mistake:
   * then the answer names the delivery to redeliver instead.
   */
  private async deliveryNotFound(workspaceId: string, webhookId: string, id: string): Promise<AppError> {
    const deliveryId = await this.deliveries.deliveryOfAttempt(workspaceId, webhookId, id);
    if (!deliveryId) return AppError.notFound('Delivery');
    return new AppError(
      'NOT_FOUND',
      `Delivery not found: ${id} is the attemptId of an attempt of delivery ${deliveryId}; ` +
        'redeliver takes the deliveryId',
    );
  }

  async redeliver(workspaceId: string, webhookId: string, deliveryId: string): Promise<RedeliveryDto> {
    const webhook = await this.webhooks.get(workspaceId, webhookId);
    const eventType = await this.deliveries.eventTypeOf(workspaceId, webhookId, deliveryId);
    if (eventType === undefined) throw await this.deliveryNotFound(workspaceId, webhookId, deliveryId);
    if (!webhook.enabled && eventType !== 'webhook.test') throw this.disabled();
    // Only a settled delivery: a pending one has an attempt scheduled or in flight already.
    const reset = await this.deliveries.resetSettled(deliveryId);
    if (!reset) throw AppError.conflict('This delivery is still pending: its next attempt is already scheduled');
    await this.enqueueAfterCommit([{ deliveryId: reset.id, attempt: reset.attempts + 1 }]);
    return {
      deliveryId: reset.id,
      eventId: reset.eventId,
      eventType: reset.eventType,
      attempt: reset.attempts + 1,
    };
  }
  async replay(workspaceId: string, webhookId: string, range: { from: string; to: string }): Promise<ReplayResultDto> {
    const from = new Date(range.from);
    const to = new Date(range.to);
    if (to.getTime() <= from.getTime()) {
      throw AppError.validation('to must be after from', [{ field: 'to', message: 'must be after from' }]);
    }
    if (to.getTime() - from.getTime() > MAX_REPLAY_RANGE_MS) {
      throw AppError.validation('The range may cover at most 7 days', [
        { field: 'to', message: 'must be at most 7 days after from' },
      ]);
    }
    const webhook = await this.webhooks.get(workspaceId, webhookId);
    if (!webhook.enabled) throw this.disabled();
    await this.takeReplaySlot(webhook);

    // Events of the range this endpoint subscribes to, oldest first, one more than the cap to
    // know whether to resume. Settled deliveries go back to pending; missing ones are created.
    const events = await this.outbox.listRange(workspaceId, from, to, webhook.events, MAX_REPLAY_EVENTS + 1);
    const more = events.length > MAX_REPLAY_EVENTS;
    const batch = events.slice(0, MAX_REPLAY_EVENTS);
    const queued = await this.deliveries.queueForReplay(workspaceId, webhookId, batch);
    await this.enqueueAfterCommit(queued.map((d) => ({ deliveryId: d.id, attempt: d.attempts + 1 })));
    return {
      queued: queued.length,
      alreadyPending: batch.length - queued.length,
      resumeFrom: more ? events[MAX_REPLAY_EVENTS].createdAt.toISOString() : null,
    };
  }

  /** One replay per endpoint per cooldown, counted in Postgres (no Redis on this path). */
  private async takeReplaySlot(webhook: Webhook): Promise<void> {
    const waitMs = await this.webhookRows.takeReplaySlot(webhook, this.cfg.replayCooldownMs);
    if (waitMs === 0) return;
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      `One replay per endpoint every ${Math.round(this.cfg.replayCooldownMs / 1000)} s; try again in ${retryAfter} s`,
      undefined,
      { 'Retry-After': retryAfter },
    );
  }

  private disabled(): AppError {
    return AppError.conflict('This endpoint is disabled; enable it (PUT /webhooks/{id}) before sending events again');
  }

  /** After the commit (also under Idempotency-Key); when Redis is away the reconciler picks them up. */
  private async enqueueAfterCommit(attempts: DueAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    await afterCommit(() =>
      this.queue
        .enqueueAttempts(attempts, 2_000)
        .catch((err: Error) =>
          this.logger.warn(`${attempts.length} redelivery job(s) left for the reconciler: ${err.message}`),
        ),
    );
  }
}
