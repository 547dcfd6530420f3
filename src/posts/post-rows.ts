import { PostTargetPart } from './post-target-part.entity';
import { PostTarget } from './post-target.entity';
import { Post } from './post.entity';

/** Raw-row mappers for the publishing hot path, which uses plain SQL (see PublisherService). */
export const POST_COLUMNS =
  'id, workspace_id, content, status, media_ids, thread, scheduled_at, timeline_at, published_at, metadata, external_id, queued, publication, approval, rejection, created_at, updated_at';

export const TARGET_COLUMNS =
  'id, post_id, channel_id, position, content_override, media_ids_override, status, publication, due_at, publication_started_at, claim_job_id, claimed_until, ' +
  'attempts, platform_post_id, url, published_at, error_code, error_message, updated_at';

export const PART_COLUMNS = 'target_id, index, platform_post_id, url, reply_ref, published_at';

type Row = Record<string, unknown>;

export function toPost(r: Row): Post {
  return Object.assign(new Post(), {
    id: r.id,
    workspaceId: r.workspace_id,
    content: r.content,
    status: r.status,
    mediaIds: r.media_ids ?? [],
    thread: r.thread ?? [],
    scheduledAt: r.scheduled_at ?? null,
    timelineAt: r.timeline_at,
    publishedAt: r.published_at ?? null,
    metadata: r.metadata ?? {},
    externalId: r.external_id ?? null,
    queued: r.queued,
    publication: r.publication,
    approval: r.approval ?? null,
    rejection: r.rejection ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
}

export function toTarget(r: Row): PostTarget {
  return Object.assign(new PostTarget(), {
    id: r.id,
    postId: r.post_id,
    channelId: r.channel_id,
    position: r.position,
    contentOverride: r.content_override ?? null,
    mediaIdsOverride: r.media_ids_override ?? null,
    status: r.status,
    publication: r.publication,
    dueAt: r.due_at ?? null,
    publicationStartedAt: r.publication_started_at ?? null,
    claimJobId: r.claim_job_id ?? null,
    claimedUntil: r.claimed_until ?? null,
    attempts: r.attempts,
    platformPostId: r.platform_post_id ?? null,
    url: r.url ?? null,
    publishedAt: r.published_at ?? null,
    errorCode: r.error_code ?? null,
    errorMessage: r.error_message ?? null,
    updatedAt: r.updated_at,
  });
}

export function toPart(r: Row): PostTargetPart {
  return Object.assign(new PostTargetPart(), {
    targetId: r.target_id,
    index: r.index,
    platformPostId: r.platform_post_id,
    url: r.url,
    replyRef: r.reply_ref ?? null,
    publishedAt: r.published_at,
  });
}
