/**
 * The MCP tools: one table of names, descriptions, the scope each needs, and the API operation whose
 * parameters and body each takes (its input JSON Schema is derived from the OpenAPI document, see
 * tool-schemas.ts). The remote server (mcp.service.ts) and the stdio package (packages/mcp, through
 * its generated tools file) both read this table: a tool is declared once.
 *
 * Each tool needs the scope its REST route needs (a spec compares them with the OpenAPI document's
 * `x-required-scope`).
 */

import type { Scope } from '../auth/scopes.format';

/** A scope a tool needs: the key scopes of the REST API (auth/scopes.format.ts). */
export type McpScope = Scope;

/** The scopes the tools need, once each (the protected-resource metadata's `scopes_supported`). */
export const MCP_SCOPES: readonly McpScope[] = [
  'posts:read',
  'posts:write',
  'posts:publish',
  'media:write',
  'channels:read',
  'analytics:read',
  'events:read',
];

export type McpToolName =
  | 'list_providers'
  | 'list_channels'
  | 'validate_post'
  | 'create_post'
  | 'get_post'
  | 'list_posts'
  | 'update_post'
  | 'delete_post'
  | 'upload_media_from_url'
  | 'get_media'
  | 'get_post_analytics'
  | 'list_events';

export interface McpToolSpec {
  name: McpToolName;
  title: string;
  description: string;
  /** The scope a key or token needs to call it. */
  scope: McpScope;
  /** The REST operation it stands for (its OpenAPI path, under /api): path and query parameters and JSON body are the tool's input. */
  operation: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string };
  /** Takes `idempotencyKey` (a POST that creates): the same key with the same input returns the first result. */
  idempotent: boolean;
  /** Changes nothing (MCP's readOnlyHint). */
  readOnly: boolean;
  /** May remove something (MCP's destructiveHint). */
  destructive: boolean;
}

const LIMITS_HINT =
  'Each network has its own limits (characters, media count and types, video duration, threads, first ' +
  'comments): read them from list_providers or list_channels (`limits`) or the resource providers://limits.';

/** The tools, in the order an agent usually needs them. */
export const MCP_TOOLS: readonly McpToolSpec[] = [
  {
    name: 'list_providers',
    title: 'List social networks',
    description:
      'The social networks this server can post to: how each connects, whether it is enabled, and its limits ' +
      '(`limits`: maximum characters, media per post, image and video constraints) and per-network options schema. ' +
      'Read it before writing content for a network.',
    scope: 'channels:read',
    operation: { method: 'GET', path: '/providers' },
    idempotent: false,
    readOnly: true,
    destructive: false,
  },
  {
    name: 'list_channels',
    title: 'List connected channels',
    description:
      'The connected social accounts (channels) of the workspace, each with its `id` (what posts target in ' +
      '`channelIds`), provider, status and the limits that apply to it. Keyset-paginated: pass `cursor` from ' +
      '`nextCursor`. ' +
      LIMITS_HINT,
    scope: 'channels:read',
    operation: { method: 'GET', path: '/channels' },
    idempotent: false,
    readOnly: true,
    destructive: false,
  },
  {
    name: 'validate_post',
    title: 'Check a post without saving it',
    description:
      "Checks a post (same input as create_post) against every target channel's limits and returns " +
      '`{valid, problems}`, each problem naming the field and the limit. Saves nothing. Call it before ' +
      'create_post and fix every problem first. ' +
      LIMITS_HINT,
    scope: 'posts:write',
    operation: { method: 'POST', path: '/posts/validate' },
    idempotent: false,
    readOnly: true,
    destructive: false,
  },
  {
    name: 'create_post',
    title: 'Create a post',
    description:
      'Creates a post for one or more channels (`channelIds`). Without `scheduledAt` or `publishNow` it is a draft; ' +
      '`scheduledAt` (RFC 3339) schedules it, `publishNow: true` publishes at once, `queue: true` takes the next ' +
      'free posting slot. A key without the posts:publish scope (or a workspace that requires approval) stores a ' +
      'post that would be scheduled or published as `pending_approval` for a person to approve. Run validate_post ' +
      'first. Pass an `idempotencyKey` (any unique string): a retried call with the same key and input returns the ' +
      'first result and never creates twice (one is generated when absent, returned in `_meta`). ' +
      LIMITS_HINT,
    scope: 'posts:write',
    operation: { method: 'POST', path: '/posts' },
    idempotent: true,
    readOnly: false,
    destructive: false,
  },
  {
    name: 'get_post',
    title: 'Get a post',
    description:
      'One post with its status and the outcome per channel (`targets`: status, link to the published post, error).',
    scope: 'posts:read',
    operation: { method: 'GET', path: '/posts/{id}' },
    idempotent: false,
    readOnly: true,
    destructive: false,
  },
  {
    name: 'list_posts',
    title: 'List posts',
    description:
      'Posts of the workspace, filtered by `status`, `channelId`, `externalId` and a time range (`from`, `to`), ' +
      'newest first by default. Keyset-paginated: pass `cursor` from `nextCursor`.',
    scope: 'posts:read',
    operation: { method: 'GET', path: '/posts' },
    idempotent: false,
    readOnly: true,
    destructive: false,
  },
  {
    name: 'update_post',
    title: 'Replace a post',
    description:
      'Replaces a draft, scheduled, pending or failed post (`id` plus the same input as create_post) and reschedules ' +
      'or publishes it accordingly; a post being published or already published cannot change. Run ' +
      'validate_post on the new content first. ' +
      LIMITS_HINT,
    scope: 'posts:write',
    operation: { method: 'PUT', path: '/posts/{id}' },
    idempotent: false,
    readOnly: false,
    destructive: false,
  },
  {
    name: 'delete_post',
    title: 'Delete a post',
    description:
      'Deletes a post that was never published (a draft, a scheduled post, whose publication is cancelled, or a ' +
      'failed post of which nothing went out). Never deletes anything from the networks.',
    scope: 'posts:write',
    operation: { method: 'DELETE', path: '/posts/{id}' },
    idempotent: false,
    readOnly: false,
    destructive: true,
  },
  {
    name: 'upload_media_from_url',
    title: 'Upload media from a URL',
    description:
      'Downloads an image or video from a public http(s) URL into the media library and returns the media item; ' +
      'attach its `id` to a post in `mediaIds`. Small files come back `ready`; big or slow ones come back ' +
      '`processing`: poll get_media until `ready` (or `failed`, with `error`). Pass an `idempotencyKey` so that a ' +
      'retry does not download twice (one is generated when absent, returned in `_meta`).',
    scope: 'media:write',
    operation: { method: 'POST', path: '/media/upload/url' },
    idempotent: true,
    readOnly: false,
    destructive: false,
  },
  {
    name: 'get_media',
    title: 'Get a media item',
    description:
      'One media item: status (`uploading`, `processing`, `ready`, `failed`), type, size, dimensions, video ' +
      'duration and codecs, and a signed `contentUrl` to preview it.',
    scope: 'media:write',
    operation: { method: 'GET', path: '/media/{id}' },
    idempotent: false,
    readOnly: true,
    destructive: false,
  },
  {
    name: 'get_post_analytics',
    title: 'Get the analytics of a post',
    description:
      'Engagement figures (impressions, likes, reposts, replies, ...) of a published post, per channel and in ' +
      'total, as last read from the networks.',
    scope: 'analytics:read',
    operation: { method: 'GET', path: '/analytics/posts/{postId}' },
    idempotent: false,
    readOnly: true,
    destructive: false,
  },
  {
    name: 'list_events',
    title: 'List events',
    description:
      'What happened in the workspace, newest first (post.published, post.failed, channel.connected, ' +
      'channel.disconnected, media.ready, ...), the same events webhooks receive; filter by `type`. Keyset-paginated.',
    scope: 'events:read',
    operation: { method: 'GET', path: '/events' },
    idempotent: false,
    readOnly: true,
    destructive: false,
  },
];

/** What an agent is told when it connects (the initialize result's `instructions`). */
export const MCP_INSTRUCTIONS =
  'Social publishing service: drafts, validates, schedules and publishes posts to connected social accounts. ' +
  'Typical flow: list_channels (pick channel ids), list_providers or the providers://limits resource (know each ' +
  "network's limits), upload_media_from_url if the post has media, validate_post until it has no problems, then " +
  'create_post with an idempotencyKey. Without the posts:publish scope, scheduled posts wait for approval. ' +
  'Follow up with get_post, list_events and get_post_analytics.';
