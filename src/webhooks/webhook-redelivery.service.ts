import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { AppError } from '../common/errors';
import { webhooksConfig } from '../config/webhooks.config';
import { EventOutboxStore } from '../events/event-outbox.store';
import { afterCommit } from '../database/request-transaction';
import { RedeliveryDto, ReplayResultDto } from './dto/webhook-redelivery.dto';
import { DueAttempt, WebhookQueue } from './webhook.queue';
import { Webhook } from './webhook.entity';
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
    private readonly dataSource: DataSource,
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
    const [attempt] = await this.dataSource.query<Array<{ delivery_id: string }>>(
      `SELECT delivery_id FROM webhook_delivery_attempts WHERE id = $1 AND webhook_id = $2 AND workspace_id = $3`,
      [id, webhookId, workspaceId],
    );
    if (!attempt) return AppError.notFound('Delivery');
    return new AppError(
      'NOT_FOUND',
      `Delivery not found: ${id} is the attemptId of an attempt of delivery ${attempt.delivery_id}; ` +
        'redeliver takes the deliveryId',
    );
  }

  async redeliver(workspaceId: string, webhookId: string, deliveryId: string): Promise<RedeliveryDto> {
    const webhook = await this.webhooks.get(workspaceId, webhookId);
    const [delivery] = await this.dataSource.query<Array<{ event_type: string }>>(
      `SELECT event_type FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2 AND workspace_id = $3`,
      [deliveryId, webhookId, workspaceId],
    );
    if (!delivery) throw await this.deliveryNotFound(workspaceId, webhookId, deliveryId);
    if (!webhook.enabled && delivery.event_type !== 'webhook.test') throw this.disabled();
    // Only a settled delivery: a pending one has an attempt scheduled or in flight already.
    const [reset] = await this.dataSource.query<
      Array<{ id: string; event_id: string; event_type: string; attempts: number }>
    >(
      `WITH reset AS (
         UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now()
          WHERE id = $1 AND status <> 'pending'
         RETURNING id, event_id, event_type, attempts)
       SELECT * FROM reset`,
      [deliveryId],
    );
    if (!reset) throw AppError.conflict('This delivery is still pending: its next attempt is already scheduled');
    await this.enqueueAfterCommit([{ deliveryId: reset.id, attempt: reset.attempts + 1 }]);
    return {
      deliveryId: reset.id,
      eventId: reset.event_id,
      eventType: reset.event_type,
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
    const queued: Array<{ id: string; attempts: number }> = batch.length
      ? await this.dataSource.query(
          `INSERT INTO webhook_deliveries AS d
             (workspace_id, webhook_id, event_id, event_type, status, attempts, next_attempt_at)
           SELECT $3::uuid, $2::uuid, e.id, e.type, 'pending', 0, now()
             FROM unnest($1::uuid[], $4::varchar[]) AS e(id, type)
           ON CONFLICT (webhook_id, event_id) DO UPDATE
              SET status = 'pending', next_attempt_at = now(), updated_at = now()
            WHERE d.status <> 'pending'
           RETURNING d.id, d.attempts`,
          [batch.map((e) => e.id), webhookId, workspaceId, batch.map((e) => e.type)],
        )
      : [];
    await this.enqueueAfterCommit(queued.map((d) => ({ deliveryId: d.id, attempt: d.attempts + 1 })));
    return {
      queued: queued.length,
      alreadyPending: batch.length - queued.length,
      resumeFrom: more ? events[MAX_REPLAY_EVENTS].createdAt.toISOString() : null,
    };
  }

  /** One replay per endpoint per cooldown, counted in Postgres (no Redis on this path). */
  private async takeReplaySlot(webhook: Webhook): Promise<void> {
    const taken: unknown[] = await this.dataSource.query(
      `WITH taken AS (
         UPDATE webhooks SET last_replay_at = now()
          WHERE id = $1 AND workspace_id = $2
            AND (last_replay_at IS NULL OR last_replay_at <= now() - make_interval(secs => $3::double precision / 1000))
         RETURNING id)
       SELECT id FROM taken`,
      [webhook.id, webhook.workspaceId, this.cfg.replayCooldownMs],
    );
    if (taken.length > 0) return;
    const [{ wait_ms }] = await this.dataSource.query<[{ wait_ms: number }]>(
      `SELECT GREATEST(0, EXTRACT(EPOCH FROM (last_replay_at + make_interval(secs => $2::double precision / 1000) - now())) * 1000)::int AS wait_ms
         FROM webhooks WHERE id = $1`,
      [webhook.id, this.cfg.replayCooldownMs],
    );
    const retryAfter = Math.max(1, Math.ceil(wait_ms / 1000));
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
