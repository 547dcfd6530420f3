export {
  SocialPublishing,
  Posts,
  Media,
  Channels,
  Webhooks,
  ConnectLinks,
  Events,
  Analytics,
  ApiKeys,
  Workspace,
  Workspaces,
  type SocialPublishingOptions,
  type CallOptions,
  type UploadFromUrlOptions,
  type PageQuery,
  type ListPostsQuery,
  type ListChannelsQuery,
  type ListEventsQuery,
  type ChannelAnalyticsQuery,
  type FreeSlotsQuery,
  type ListWorkspacesQuery,
  type WorkspaceUsageQuery,
  type RateLimit,
} from './client';
export { SocialPublishingError, WebhookVerificationError, type ErrorDetail } from './errors';
export { PageIterator, type Page } from './pagination';
export type { UploadOptions, UploadProgress, UploadSource } from './upload';
export { verifyWebhook, signWebhook, type VerifyWebhookOptions, type WebhookHeaders } from './webhooks';
export type {
  SocialPublishingEvent,
  WebhookEvent,
  WebhookTestEvent,
  EventType,
  ChannelDisconnectReason,
} from './events';
export type { ProviderOptions } from './provider-options';
export type * from './generated/types.gen';
