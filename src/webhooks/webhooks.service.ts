import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError } from '../common/errors';
import { SsrfBlockedError, assertPublicUrl } from '../common/http/ssrf';
import { Page } from '../common/pagination/pagination';
import { appConfig } from '../config';
import type { EventType } from '../events/event-payloads';
import { WebhookTestEventDto } from './dto/webhook-test.dto';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';
import { WebhookDeliveryLogStore } from './webhook-delivery-log.store';
import { afterCommit } from '../database/request-transaction';
import { WebhookQueue } from './webhook.queue';
import { generateWebhookSecret } from './webhook-signer';
import { Webhook } from './webhook.entity';
import { Transactions } from '../database/transactions';
import { WebhooksStore } from './webhooks.store';

/** After a rotation the old secret keeps signing (next to the new one) this long. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export const TEST_EVENT_TYPE = 'webhook.test';

export interface WebhookInput {
  url: string;
  events?: EventType[];
  description?: string;
  enabled?: boolean;
}

/** Associated data of a sealed webhook secret: it only opens on its own row. */
export function webhookSecretAad(workspaceId: string, webhookId: string): string {
  return `webhook:${workspaceId}:${webhookId}`;
}

/** Webhook subscriptions of a workspace, their secrets, test deliveries and the attempt log. */
@Injectable()
export class WebhooksService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly webhooks: WebhooksStore,
    private readonly deliveries: WebhookDeliveryLogStore,
    private readonly transactions: Transactions,
    private readonly queue: WebhookQueue,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
    private readonly box: SecretBox,
  ) {}

  /** Creates a subscription; the returned secret is the only time it is readable. */
  async create(workspaceId: string, input: WebhookInput): Promise<{ webhook: Webhook; secret: string }> {
    await this.assertDeliverableUrl(input.url);
    const id = randomUUID();
    const secret = generateWebhookSecret();
    const webhook = await this.webhooks.insert({
      id,
      workspaceId,
      ...this.settings(input),
      disabledReason: null,
      failingSince: null,
      secret: this.box.seal(secret, webhookSecretAad(workspaceId, id)),
      previousSecret: null,
      previousSecretExpiresAt: null,
      secretRotatedAt: null,
    });
    return { webhook, secret };
  }

  /** Which of these workspaces have an enabled webhook subscribed to the event type. */
  workspacesSubscribedTo(workspaceIds: string[], eventType: EventType): Promise<string[]> {
    return this.webhooks.workspacesSubscribedTo(workspaceIds, eventType);
  }

  list(workspaceId: string, q: { limit: number; cursor?: string }): Promise<Page<Webhook>> {
    return this.webhooks.page(workspaceId, q);
  }

  async get(workspaceId: string, id: string): Promise<Webhook> {
    const webhook = await this.webhooks.find(workspaceId, id);
    if (!webhook) throw AppError.notFound('Webhook');
    return webhook;
  }

  /**
   * Replaces url, events, description and enabled. Enabling clears `disabledReason` and the
   * failure streak, so an endpoint the service disabled gets a fresh 5 days.
   */
  async update(workspaceId: string, id: string, input: WebhookInput): Promise<Webhook> {
    const current = await this.get(workspaceId, id);
    await this.assertDeliverableUrl(input.url);
    const settings = this.settings(input);
    const reEnabled = settings.enabled && !current.enabled;
    await this.webhooks.update(workspaceId, id, {
      ...settings,
      ...(settings.enabled ? { disabledReason: null } : {}),
      ...(reEnabled ? { failingSince: null } : {}),
    });
    return this.get(workspaceId, id);
  }

  /** Deletes the subscription with its deliveries and attempt log; queued jobs find nothing and stop. */
  async remove(workspaceId: string, id: string): Promise<void> {
    if (!(await this.webhooks.delete(workspaceId, id))) throw AppError.notFound('Webhook');
  }

  /** A new secret; the previous one keeps signing next to it for 24 h. Returns the new secret once. */
  async rotateSecret(workspaceId: string, id: string): Promise<{ webhook: Webhook; secret: string }> {
    const secret = generateWebhookSecret();
    await this.transactions.run(async (em) => {
      const webhook = await this.webhooks.lock(em, workspaceId, id);
      if (!webhook) throw AppError.notFound('Webhook');
      const sealed = this.box.seal(secret, webhookSecretAad(workspaceId, id));
      await this.webhooks.rotateSecret(em, webhook, sealed, SECRET_ROTATION_OVERLAP_MS);
    });
    return { webhook: await this.get(workspaceId, id), secret };
  }

  /**
   * Queues a `webhook.test` event for this endpoint only (even while it is paused or disabled for
   * failing, so a fixed endpoint can be checked before re-enabling it). An endpoint that answered
   * 410 Gone asked never to be called again: 409 until it is re-enabled. The test is signed, retried
   * and logged like any delivery but is not an outbox event: it does not appear in `GET /events`.
   */
  async sendTest(workspaceId: string, id: string): Promise<WebhookTestEventDto> {
    const webhook = await this.get(workspaceId, id);
    if (webhook.disabledReason === 'gone') {
      throw AppError.conflict(
        'The endpoint answered 410 Gone and was disabled; re-enable it (PUT with enabled: true) before sending a test',
      );
    }
    const event: WebhookTestEventDto = {
      id: randomUUID(),
      type: TEST_EVENT_TYPE,
      timestamp: new Date().toISOString(),
      workspaceId,
      data: {
        webhookId: webhook.id,
        url: webhook.url,
        message: 'A test delivery from the Social Publishing Service. No action is needed.',
      },
    };
    // Due now by the database's clock, as everywhere deliveries are scheduled.
    const delivery = {
      id: await this.deliveries.insertTest({
        workspaceId,
        webhookId: webhook.id,
        eventId: event.id,
        eventType: TEST_EVENT_TYPE,
        payload: event,
      }),
    };
    // After the commit (also a request transaction's, under Idempotency-Key); when Redis is away
    // the worker's reconciler picks the delivery up later.
    await afterCommit(() =>
      this.queue
        .enqueueAttempts([{ deliveryId: delivery.id, attempt: 1 }], 2_000)
        .catch((err: Error) =>
          this.logger.warn(`Test delivery ${delivery.id} left for the reconciler: ${err.message}`),
        ),
    );
    return event;
  }

  /** The delivery attempts of these events at any of the workspace's endpoints, oldest first. */
  attemptsOfEvents(workspaceId: string, eventIds: string[]): Promise<WebhookDeliveryAttempt[]> {
    return this.deliveries.attemptsOfEvents(workspaceId, eventIds, 200);
  }

  /** The endpoint's delivery attempts, newest first. */
  async listDeliveries(
    workspaceId: string,
    id: string,
    q: { limit: number; cursor?: string },
  ): Promise<Page<WebhookDeliveryAttempt>> {
    await this.get(workspaceId, id);
    return this.deliveries.attemptsPage(workspaceId, id, q);
  }

  private settings(input: WebhookInput) {
    const events = [...new Set(input.events ?? [])];
    return {
      url: input.url,
      events,
      description: input.description ?? null,
      enabled: input.enabled ?? true,
    };
  }

  /** https only (unless private targets are allowed, i.e. development), never a non-public address. */
  private async assertDeliverableUrl(url: string): Promise<void> {
    const allowPrivate = this.app.outboundAllowPrivate;
    if (!allowPrivate && new URL(url).protocol !== 'https:') {
      throw AppError.invalid([{ field: 'url', message: 'must use https' }]);
    }
    try {
      await assertPublicUrl(url, allowPrivate);
    } catch (err) {
      if (err instanceof SsrfBlockedError) {
        throw AppError.invalid([{ field: 'url', message: err.message }]);
      }
      throw err;
    }
  }

  /**
   * Retention: deletes settled deliveries last touched more than `days` ago, with their attempts (the
   * attempts' foreign key cascades), in batches. `statuses` picks which settled ones (never `pending`).
   */
  pruneDeliveries(
    statuses: Array<'succeeded' | 'failed' | 'cancelled'>,
    days: number,
    batchSize: number,
    stop?: () => boolean,
  ): Promise<number> {
    return this.deliveries.deleteSettled(statuses, days, batchSize, stop);
  }
}
