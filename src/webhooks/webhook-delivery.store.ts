import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MicroBatcher } from '../common/batching/micro-batcher';
import { EventBody, EventOutboxStore } from '../events/event-outbox.store';
import { WebhookDeliveryStatus } from './webhook-delivery.entity';
import { WebhookDisabledReason } from './webhook.entity';

/** What an attempt changes on its endpoint: the end or start of a failure streak, or disabling it. */
export type EndpointChange = 'recovered' | 'failing-since' | WebhookDisabledReason;

/** A delivery whose attempt this worker now owns, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  workspaceId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  /** The envelope of a test delivery; null for outbox events. */
  payload: Record<string, unknown> | null;
  /** The number of this attempt (1 = first). */
  attempt: number;
  url: string;
  secret: string;
  /** The sealed previous secret while its overlap window lasts, else null. */
  previousSecret: string | null;
  failingSince: Date | null;
  eventData: EventBody['data'] | null;
  eventCreatedAt: Date | null;
}

export interface AttemptRecord {
  delivery: ClaimedDelivery;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  succeeded: boolean;
  /** The delivery's state after this attempt. */
  status: WebhookDeliveryStatus;
  /** Delay before the next attempt when status is pending. */
  delayMs: number | null;
  endpoint: EndpointChange | null;
}

interface ClaimRow {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  payload: Record<string, unknown> | null;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  failing_since: Date | null;
}

/** Columns an attempt is logged with (raw SQL; checked against the entity by test/database/row-mappings). */
export const ATTEMPT_INSERT_COLUMNS =
  'workspace_id, webhook_id, delivery_id, event_id, event_type, attempt, status_code, duration_ms, error, succeeded';
/** The delivery's columns a claim returns (raw SQL; checked by test/database/row-mappings). */
export const CLAIMED_DELIVERY_COLUMNS = 'id, workspace_id, webhook_id, event_id, event_type, payload, attempts';
const CLAIMED_RETURNING = CLAIMED_DELIVERY_COLUMNS.split(', ')
  .map((c) => `d.${c}`)
  .join(', ');

const MAX_BATCH = 100;
/** A 2xx within this time is success (docs/guide.md section 9). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** A claimed attempt past this is presumed lost with its worker; the reconciler re-enqueues it. */
const ATTEMPT_LEASE_MS = DELIVERY_TIMEOUT_MS * 2;
/** A Bull delay may fire slightly before the database's idea of the due time. */
const EARLY_SLACK_MS = 500;

/**
 * The delivery processor's SQL. Claims and attempt records of concurrent jobs are batched
 * (MicroBatcher): one statement and one commit per batch instead of per delivery.
 */
@Injectable()
export class WebhookDeliveryStore {
  private readonly claims = new MicroBatcher<string, ClaimedDelivery | null>((ids) => this.claimBatch(ids), {
    maxBatch: MAX_BATCH,
  });
  private readonly records = new MicroBatcher<AttemptRecord, void>((r) => this.recordBatch(r), { maxBatch: MAX_BATCH });

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: EventOutboxStore,
  ) {}

  /**
   * Takes the due attempt of a pending delivery: bumps `attempts` and moves `next_attempt_at` to the
   * end of a lease (after which the reconciler may hand it to another worker), in one statement, so
   * exactly one job sends it. Null when not due: duplicate job, settled, deleted, endpoint disabled.
   */
  claim(deliveryId: string): Promise<ClaimedDelivery | null> {
    return this.claims.push(deliveryId);
  }

  /** Logs the attempt and moves the delivery and its endpoint on, atomically. */
  record(record: AttemptRecord): Promise<void> {
    return this.records.push(record);
  }

  /** Settles a pending delivery that will not be sent (endpoint disabled since fan-out, event gone). */
  async cancel(deliveryId: string, onlyIfEndpointDisabled: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries d SET status = 'cancelled', next_attempt_at = NULL, updated_at = now()
         FROM webhooks w
        WHERE d.id = $1 AND w.id = d.webhook_id AND d.status = 'pending'
          AND (NOT $2::boolean OR (NOT w.enabled AND d.payload IS NULL))`,
      [deliveryId, onlyIfEndpointDisabled],
    );
  }

  private async claimBatch(ids: string[]): Promise<Array<ClaimedDelivery | null>> {
    const rows: ClaimRow[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE webhook_deliveries d
            SET attempts = d.attempts + 1,
                next_attempt_at = now() + make_interval(secs => $2::double precision / 1000),
                updated_at = now()
           FROM webhooks w
          WHERE d.id = ANY ($1::uuid[]) AND w.id = d.webhook_id AND w.workspace_id = d.workspace_id
            AND d.status = 'pending'
            AND d.next_attempt_at <= now() + make_interval(secs => $3::double precision / 1000)
            AND (w.enabled OR d.payload IS NOT NULL)
        RETURNING ${CLAIMED_RETURNING},
                  w.url, w.secret, CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END
                  AS previous_secret, w.failing_since
       )
       SELECT * FROM claimed`,
      [[...new Set(ids)], ATTEMPT_LEASE_MS, EARLY_SLACK_MS],
    );
    // The events' data, from their owner (the outbox), each in its delivery's workspace.
    const bodies = await this.outbox.bodiesOf(rows.map((r) => ({ id: r.event_id, workspaceId: r.workspace_id })));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const r = byId.get(id);
      byId.delete(id); // the same delivery twice in one batch: only the first call gets it
      if (!r) return null;
      return {
        id: r.id,
        workspaceId: r.workspace_id,
        webhookId: r.webhook_id,
        eventId: r.event_id,
        eventType: r.event_type,
        payload: r.payload,
        attempt: r.attempts,
        url: r.url,
        secret: r.secret,
        previousSecret: r.previous_secret,
        failingSince: r.failing_since,
        eventData: bodies.get(r.event_id)?.data ?? null,
        eventCreatedAt: bodies.get(r.event_id)?.createdAt ?? null,
      };
    });
  }

  private async recordBatch(records: AttemptRecord[]): Promise<void[]> {
    // One change per endpoint: disabling wins, otherwise the latest attempt's.
    const endpoints = new Map<string, { workspaceId: string; change: EndpointChange }>();
    for (const r of records) {
      if (!r.endpoint) continue;
      const current = endpoints.get(r.delivery.webhookId)?.change;
      if (current === 'gone' || current === 'failing') continue;
      endpoints.set(r.delivery.webhookId, { workspaceId: r.delivery.workspaceId, change: r.endpoint });
    }
    const column = <T>(f: (r: AttemptRecord) => T): T[] => records.map(f);
    await this.dataSource.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::int[], $7::int[],
                              $8::int[], $9::text[], $10::boolean[], $11::text[], $12::bigint[])
           AS t(workspace_id, webhook_id, delivery_id, event_id, event_type, attempt, status_code, duration_ms,
                error, succeeded, status, delay_ms)
       ), attempt AS (
         INSERT INTO webhook_delivery_attempts (${ATTEMPT_INSERT_COLUMNS})
         SELECT ${ATTEMPT_INSERT_COLUMNS} FROM input
       ), delivery AS (
         UPDATE webhook_deliveries d
            SET status = i.status,
                next_attempt_at = CASE WHEN i.delay_ms IS NULL THEN NULL
                                       ELSE now() + make_interval(secs => i.delay_ms::double precision / 1000) END,
                updated_at = now()
           FROM input i
          WHERE d.id = i.delivery_id
       )
       UPDATE webhooks w
          SET failing_since = CASE WHEN h.change = 'recovered' THEN NULL ELSE COALESCE(w.failing_since, now()) END,
              enabled = CASE WHEN h.change IN ('gone', 'failing') THEN false ELSE w.enabled END,
              disabled_reason = CASE WHEN h.change IN ('gone', 'failing') THEN h.change ELSE w.disabled_reason END,
              updated_at = CASE WHEN h.change IN ('gone', 'failing') THEN now() ELSE w.updated_at END
         FROM unnest($13::uuid[], $14::uuid[], $15::text[]) AS h(webhook_id, workspace_id, change)
        WHERE w.id = h.webhook_id AND w.workspace_id = h.workspace_id
          AND (h.change NOT IN ('gone', 'failing') OR w.enabled)`,
      [
        column((r) => r.delivery.workspaceId),
        column((r) => r.delivery.webhookId),
        column((r) => r.delivery.id),
        column((r) => r.delivery.eventId),
        column((r) => r.delivery.eventType),
        column((r) => r.delivery.attempt),
        column((r) => r.statusCode),
        column((r) => r.durationMs),
        column((r) => r.error?.slice(0, 500) ?? null),
        column((r) => r.succeeded),
        column((r) => r.status),
        column((r) => r.delayMs),
        [...endpoints.keys()],
        [...endpoints.values()].map((e) => e.workspaceId),
        [...endpoints.values()].map((e) => e.change),
      ],
    );
    return records.map(() => undefined);
  }
}
