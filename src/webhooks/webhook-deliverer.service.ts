import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { performance } from 'node:perf_hooks';
import { SecretBox } from '../common/crypto/secret-box';
import {
  OutboundHttp,
  OutboundNetworkError,
  OutboundResponseTooLargeError,
  OutboundTimeoutError,
  SsrfBlockedError,
} from '../common/http/outbound-http';
import { webhooksConfig } from '../config/webhooks.config';
import { failingTooLong, parseRetryAfter, retryDelayMs } from './retry-schedule';
import { ClaimedDelivery, DELIVERY_TIMEOUT_MS, EndpointChange, WebhookDeliveryStore } from './webhook-delivery.store';
import { WebhookQueue } from './webhook.queue';
import { webhookHeaders } from './webhook-signer';
import { webhookSecretAad } from './webhooks.service';
import { OutcomeMetrics } from '../metrics/outcome-metrics.service';

/** Bodies of receivers' answers are read (so connections stay reusable) but never stored. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface AttemptOutcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  succeeded: boolean;
  retryAfterMs: number | null;
}

/**
 * Makes one attempt of a delivery: claim it in the database (so a duplicate job or a second worker
 * does nothing), sign, POST, record the attempt, and schedule the next one or settle the delivery.
 */
@Injectable()
export class WebhookDeliverer {
  private readonly logger = new Logger('WebhookDelivery');

  constructor(
    private readonly store: WebhookDeliveryStore,
    private readonly http: OutboundHttp,
    private readonly box: SecretBox,
    private readonly queue: WebhookQueue,
    @Inject(webhooksConfig.KEY) private readonly cfg: ConfigType<typeof webhooksConfig>,
    private readonly outcomes: OutcomeMetrics,
  ) {}

  async deliver(deliveryId: string): Promise<void> {
    const d = await this.store.claim(deliveryId);
    if (!d) {
      // Not due, or the endpoint was disabled since the event fanned out: settle the latter.
      await this.store.cancel(deliveryId, true);
      return;
    }
    if (!d.payload && !d.eventData) {
      await this.store.cancel(deliveryId, false); // the event is gone
      return;
    }
    const outcome = await this.send(d);
    const delay = await this.record(d, outcome);
    this.outcomes.recordWebhookDelivery(outcome.succeeded ? 'delivered' : delay === null ? 'failed' : 'retry');
    if (delay !== null) {
      await this.queue
        .enqueueAttempts([{ deliveryId, attempt: d.attempt + 1, delayMs: delay }])
        .catch((err: Error) =>
          this.logger.warn(`Retry of delivery ${deliveryId} left for the reconciler: ${err.message}`),
        );
    }
  }

  private async send(d: ClaimedDelivery): Promise<AttemptOutcome> {
    const envelope = d.payload ?? {
      id: d.eventId,
      type: d.eventType,
      timestamp: d.eventCreatedAt!.toISOString(),
      workspaceId: d.workspaceId,
      data: d.eventData,
    };
    const body = JSON.stringify(envelope);
    const aad = webhookSecretAad(d.workspaceId, d.webhookId);
    const secrets = [this.box.open(d.secret, aad)];
    if (d.previousSecret) secrets.push(this.box.open(d.previousSecret, aad));
    const headers = webhookHeaders(secrets, d.eventId, Math.floor(Date.now() / 1000), body);

    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const res = await this.http.request({
        method: 'POST',
        url: d.url,
        headers,
        body,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        maxResponseBytes: MAX_RESPONSE_BYTES,
      });
      const durationMs = elapsed();
      const succeeded = res.status >= 200 && res.status < 300;
      let error: string | null = null;
      if (res.status >= 300 && res.status < 400) error = `HTTP ${res.status} (redirects are not followed)`;
      else if (!succeeded) error = `HTTP ${res.status}`;
      return {
        statusCode: res.status,
        durationMs,
        error,
        succeeded,
        retryAfterMs: succeeded ? null : parseRetryAfter(res.headers['retry-after'], Date.now()),
      };
    } catch (err) {
      return {
        statusCode: null,
        durationMs: elapsed(),
        error: describeFailure(err),
        succeeded: false,
        retryAfterMs: null,
      };
    }
  }

  /**
   * Decides what follows the attempt (success; retry after a delay; give up; disable the endpoint
   * on 410 or after failing for too long) and records it. Returns the retry delay, or null.
   */
  private async record(d: ClaimedDelivery, o: AttemptOutcome): Promise<number | null> {
    const now = Date.now();
    const gone = o.statusCode === 410;
    const tooLong = !o.succeeded && failingTooLong(d.failingSince ?? new Date(now), now, this.cfg.disableAfterMs);
    const delay =
      o.succeeded || gone || tooLong
        ? null
        : retryDelayMs(d.attempt, { scheduleMs: this.cfg.retryScheduleMs, jitter: this.cfg.retryJitter }, o);
    let endpoint: EndpointChange | null = null;
    if (o.succeeded) endpoint = d.failingSince ? 'recovered' : null;
    else if (gone) endpoint = 'gone';
    else if (tooLong) endpoint = 'failing';
    else if (!d.failingSince) endpoint = 'failing-since';

    await this.store.record({
      delivery: d,
      statusCode: o.statusCode,
      durationMs: o.durationMs,
      error: o.error,
      succeeded: o.succeeded,
      status: o.succeeded ? 'succeeded' : delay === null ? 'failed' : 'pending',
      delayMs: delay,
      endpoint,
    });
    if (gone || tooLong) {
      this.logger.warn(`Webhook ${d.webhookId} disabled: ${gone ? 'it answered 410 Gone' : 'failing for too long'}`);
    }
    return delay;
  }
}

/** A short reason for the attempt log; never headers, bodies or secrets. */
export function describeFailure(err: unknown): string {
  if (err instanceof OutboundTimeoutError) return `timeout: ${err.message}`;
  if (err instanceof SsrfBlockedError) return `blocked: ${err.message}`;
  if (err instanceof OutboundResponseTooLargeError) return err.message;
  if (err instanceof OutboundNetworkError) return `network error${err.code ? ` (${err.code})` : ''}: ${err.message}`;
  if (err instanceof Error) return `error: ${err.message}`;
  return 'error';
}
