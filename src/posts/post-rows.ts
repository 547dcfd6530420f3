import { PostTargetPart } from './post-target-part.entity';
import { PostTarget } from './post-target.entity';
import { Post } from './post.entity';

/** Raw-row mappers for the publishing hot path, which uses plain SQL (see PublisherService). */
export const POST_COLUMNS =
  'id, workspace_id, content, status, media_ids, thread, scheduled_at, timeline_at, published_at, metadata, external_id, queued, first_comment, publication, approval, rejection, created_by, created_at, updated_at';

export const TARGET_COLUMNS =
  'id, post_id, channel_id, position, content_override, media_ids_override, options, status, publication, due_at, publication_started_at, claim_job_id, claimed_until, ' +
  'attempts, platform_post_id, url, published_at, error_code, error_message, updated_at, reply_ref, first_comment, ' +
  'first_comment_status, first_comment_platform_id, first_comment_url, first_comment_error, first_comment_attempts, ' +
  'first_comment_due_at, first_comment_claim_job_id, first_comment_claimed_until';

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
    firstComment: r.first_comment ?? null,
    publication: r.publication,
    approval: r.approval ?? null,
    rejection: r.rejection ?? null,
    createdBy: r.created_by ?? null,
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
    options: r.options ?? null,
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
    replyRef: r.reply_ref ?? null,
    firstComment: r.first_comment ?? null,
    firstCommentStatus: r.first_comment_status ?? null,
    firstCommentPlatformId: r.first_comment_platform_id ?? null,
    firstCommentUrl: r.first_comment_url ?? null,
    firstCommentError: r.first_comment_error ?? null,
    firstCommentAttempts: r.first_comment_attempts ?? 0,
    firstCommentDueAt: r.first_comment_due_at ?? null,
    firstCommentClaimJobId: r.first_comment_claim_job_id ?? null,
    firstCommentClaimedUntil: r.first_comment_claimed_until ?? null,
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
