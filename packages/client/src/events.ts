import type { ChannelConnectedDto, ChannelDto, MediaDto, PostAnalyticsDto, PostDto } from './generated/types.gen';

/** Why a channel was disconnected: by a user (`DELETE /channels/{id}`) or because the network refused its credentials. */
export type ChannelDisconnectReason = 'user_request' | 'credentials_revoked' | (string & {});

interface Envelope<T extends string, D> {
  /** Event id; also the `webhook-id` header of its deliveries. */
  id: string;
  type: T;
  /** ISO 8601 UTC. */
  timestamp: string;
  workspaceId: string;
  data: D;
}

/** An event as `GET /events` lists it and webhooks receive it: a union keyed by `type`. */
export type SocialPublishingEvent =
  | Envelope<'post.published', PostDto>
  | Envelope<'post.failed', PostDto>
  /** A post that would go out waits for an approval (`pending_approval`). */
  | Envelope<'post.approval_requested', PostDto>
  /** A post pending approval was approved: it is scheduled, or publishing. */
  | Envelope<'post.approved', PostDto>
  /** A post pending approval was rejected: a draft again, with `rejection`. */
  | Envelope<'post.rejected', PostDto>
  /** A channel was connected (new or reconnected), by any way in: API, OAuth, console, connect link. */
  | Envelope<'channel.connected', ChannelConnectedDto>
  | Envelope<'channel.disconnected', ChannelDto & { reason: ChannelDisconnectReason }>
  | Envelope<'analytics.updated', PostAnalyticsDto>
  /** An upload from a URL that went on in the background (answered 202) is `ready`. */
  | Envelope<'media.ready', MediaDto>
  /** An upload from a URL that went on in the background failed; `data.error` says why. */
  | Envelope<'media.failed', MediaDto>
  /** A workspace of your organization was erased (to the other workspaces' webhooks subscribed to it). */
  | Envelope<'workspace.deleted', { workspaceId: string }>;

/** The event sent by `POST /webhooks/{id}/test` (to that endpoint only; never listed by `GET /events`). */
export type WebhookTestEvent = Envelope<'webhook.test', { webhookId: string; url: string; message: string }>;

/** What a webhook endpoint receives. */
export type WebhookEvent = SocialPublishingEvent | WebhookTestEvent;

export type EventType = SocialPublishingEvent['type'];
