import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { withDeadlockRetry } from '../database/deadlock-retry';
import { runSql } from '../database/direct-query';
import { PART_COLUMNS, POST_COLUMNS, TARGET_COLUMNS, toPart, toPost, toTarget } from './post-rows';
import { PostTargetPart } from './post-target-part.entity';
import { PostTarget } from './post-target.entity';
import { Post } from './post.entity';
import type { EnqueueableTarget } from './publish.queue';

type Row = Record<string, unknown>;

/** A job asking for its target. */
export interface ClaimRequest {
  targetId: string;
  publication: number;
  jobId: string;
}

/** A target a job took, with its post, the thread parts it published and its checkpoints. */
export interface ClaimedRows {
  target: PostTarget;
  post: Post;
  parts: PostTargetPart[];
  /** What the adapter saved on earlier attempts of this publication, by part index (docs/adr/0023). */
  checkpoints: Map<number, Record<string, unknown>>;
  /** How many targets the post has (1: its outcome settles it alone, see recordAlone). */
  targetCount: number;
}

/** What one target row becomes for an attempt's outcome. */
export interface TargetOutcome {
  targetId: string;
  publication: number;
  status: 'published' | 'pending' | 'failed';
  platformPostId: string | null;
  url: string | null;
  dueAt: Date | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** A poll of a network's processing: the claim does not count as an attempt (retries stay for failures). */
  refundAttempt?: boolean;
  /** What the network needs to reply to the published post (Bluesky: its CID); null otherwise. */
  replyRef: Record<string, string> | null;
}

/** A post a batch settled, with its targets and their parts (the data of its event). */
export interface SettledPost {
  post: Post;
  targets: PostTarget[];
  parts: PostTargetPart[];
}

/** Columns and mapper of the reconciler's due targets (raw SQL; checked by test/database/row-mappings). */
export const DUE_TARGET_COLUMNS = 'id, publication, attempts, due_at';
export function toDueTarget(r: Row): EnqueueableTarget {
  return {
    id: r.id as string,
    publication: r.publication as number,
    attempts: r.attempts as number,
    dueAt: r.due_at as Date | null,
  };
}

/**
 * The publishing side of the `posts`, `post_targets`, `post_target_parts` and `post_target_checkpoints`
 * tables (owned by posts): the claims, outcomes and settling of the publisher (a measured hot path, plain
 * SQL on the pg connection, docs/adr/0010) and the reconciler's reads.
 */
@Injectable()
export class PublishingStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One statement for a batch of jobs: takes each target if it is due and not held by another live job
   * (claimed for `claimMs`), moves scheduled posts to `publishing`, and returns the targets taken with
   * their post, parts and checkpoints. Their `claimJobId` says which job holds each.
   */
  async claim(requests: ClaimRequest[], claimMs: number): Promise<ClaimedRows[]> {
    const rows = await withDeadlockRetry(() =>
      runSql(
        this.dataSource,
        `WITH req AS (SELECT * FROM unnest($1::uuid[], $2::int[], $3::varchar[]) AS r(id, publication, job_id)),
         t AS (
           UPDATE post_targets pt
              SET status = 'publishing', attempts = pt.attempts + 1, claim_job_id = req.job_id,
                  claimed_until = now() + ($4 || ' milliseconds')::interval, updated_at = now()
             FROM req
            WHERE pt.id = req.id AND pt.publication = req.publication
              AND ((pt.status = 'pending' AND pt.due_at <= now() + interval '1 second')
                OR (pt.status = 'publishing' AND (pt.claim_job_id = req.job_id OR pt.claimed_until < now())))
            RETURNING ${qualified('pt', TARGET_COLUMNS)}),
         p AS (
           UPDATE posts SET status = 'publishing', updated_at = now()
            WHERE id IN (SELECT post_id FROM t) AND status = 'scheduled' RETURNING id)
         SELECT row_to_json(t) AS target, row_to_json(po) AS post,
                (SELECT json_agg(row_to_json(pp)) FROM (
                   SELECT ${PART_COLUMNS} FROM post_target_parts WHERE target_id = t.id ORDER BY index) pp) AS parts,
                (SELECT json_object_agg(c.index, c.state) FROM post_target_checkpoints c
                  WHERE c.target_id = t.id AND c.publication = t.publication) AS checkpoints,
                (SELECT count(*) FROM post_targets x WHERE x.post_id = t.post_id)::int AS target_count
           FROM t JOIN posts po ON po.id = t.post_id`,
        [
          requests.map((r) => r.targetId),
          requests.map((r) => r.publication),
          requests.map((r) => r.jobId),
          String(claimMs),
        ],
      ),
    );
    return rows.map((r) => ({
      target: toTarget(reviveDates(r.target as Row)),
      post: toPost(reviveDates(r.post as Row)),
      parts: ((r.parts as Row[] | null) ?? []).map((p) => toPart(reviveDates(p))),
      checkpoints: new Map(
        Object.entries((r.checkpoints as Record<string, Record<string, unknown>> | null) ?? {}).map(([k, v]) => [
          Number(k),
          v,
        ]),
      ),
      targetCount: r.target_count as number,
    }));
  }

  /**
   * The outcomes of targets that are their post's only target, their posts' settling and the posts'
   * events, in one statement (docs/adr/0044): `record` is the events module's outbox (EventsService.
   * recordWith), which appends the insert of the candidate events keyed by the ids of the posts this
   * statement settled. Each target is written if still `publishing` in that publication, as in
   * recordOutcomes; a final outcome settles its post if the post is `publishing` and has no other target
   * (with no sibling there is no concurrent last target to wait for, hence no lock taken first). `at` is
   * the time written as published_at and updated_at, the one the events carry. Returns the ids of the
   * targets written and of the posts settled.
   */
  async recordAlone<R extends { applied: string[]; settled: string[] }>(
    outcomes: TargetOutcome[],
    at: Date,
    record: (
      on: DataSource,
      change: { ctes: string; keysFrom: string; resultFrom: string; params: unknown[] },
    ) => Promise<R>,
  ): Promise<R> {
    return withDeadlockRetry(() =>
      record(this.dataSource, {
        ctes: `o AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS o(id uuid, publication int, status varchar,
             platform_post_id varchar, url varchar, due_at timestamptz, error_code varchar, error_message text,
             refund boolean, reply_ref jsonb)),
         u AS (
           UPDATE post_targets pt
              SET status = o.status,
                  platform_post_id = CASE WHEN o.status = 'published' THEN o.platform_post_id ELSE pt.platform_post_id END,
                  url = CASE WHEN o.status = 'published' THEN o.url ELSE pt.url END,
                  published_at = CASE WHEN o.status = 'published' THEN $2::timestamptz ELSE pt.published_at END,
                  reply_ref = CASE WHEN o.status = 'published' THEN o.reply_ref ELSE pt.reply_ref END,
                  due_at = COALESCE(o.due_at, pt.due_at), error_code = o.error_code, error_message = o.error_message,
                  attempts = pt.attempts - CASE WHEN o.refund THEN 1 ELSE 0 END,
                  claim_job_id = NULL, claimed_until = NULL, updated_at = $2::timestamptz
             FROM o
            WHERE pt.id = o.id AND pt.publication = o.publication AND pt.status = 'publishing'
           RETURNING pt.id, pt.post_id, pt.status),
         settled AS (
           UPDATE posts p
              SET status = u.status,
                  published_at = CASE WHEN u.status = 'published' THEN $2::timestamptz END, updated_at = $2::timestamptz
             FROM u
            WHERE p.id = u.post_id AND u.status IN ('published', 'failed') AND p.status = 'publishing'
              AND NOT EXISTS (SELECT 1 FROM post_targets x WHERE x.post_id = p.id AND x.id <> u.id)
           RETURNING p.id AS key),
         result AS (SELECT ARRAY(SELECT id FROM u)::text[] AS applied, ARRAY(SELECT key FROM settled)::text[] AS settled)`,
        keysFrom: 'settled',
        resultFrom: 'result',
        params: [
          JSON.stringify(
            outcomes.map((o) => ({
              id: o.targetId,
              publication: o.publication,
              status: o.status,
              platform_post_id: o.platformPostId,
              url: o.url,
              due_at: o.dueAt?.toISOString() ?? null,
              error_code: o.errorCode,
              error_message: o.errorMessage,
              refund: o.refundAttempt === true,
              reply_ref: o.replyRef,
            })),
          ),
          at.toISOString(),
        ],
      }),
    );
  }

  /**
   * Writes the targets' new state (those still `publishing` in that publication) in one UPDATE, and
   * locks their posts still `publishing` (in id order) for settle(); returns the locked posts' ids.
   */
  async recordOutcomes(em: EntityManager, outcomes: TargetOutcome[], postIds: string[]): Promise<string[]> {
    const locked = await runSql<{ id: string }>(
      em,
      `WITH u AS (
         UPDATE post_targets pt
            SET status = o.status,
                platform_post_id = CASE WHEN o.status = 'published' THEN o.platform_post_id ELSE pt.platform_post_id END,
                url = CASE WHEN o.status = 'published' THEN o.url ELSE pt.url END,
                published_at = CASE WHEN o.status = 'published' THEN now() ELSE pt.published_at END,
                reply_ref = CASE WHEN o.status = 'published' THEN o.reply_ref ELSE pt.reply_ref END,
                due_at = COALESCE(o.due_at, pt.due_at), error_code = o.error_code, error_message = o.error_message,
                attempts = pt.attempts - CASE WHEN o.refund THEN 1 ELSE 0 END,
                claim_job_id = NULL, claimed_until = NULL, updated_at = now()
           FROM unnest($1::uuid[], $2::int[], $3::varchar[], $4::varchar[], $5::varchar[], $6::timestamptz[],
                       $7::varchar[], $8::text[], $10::boolean[], $11::jsonb[])
                AS o(id, publication, status, platform_post_id, url, due_at, error_code, error_message, refund, reply_ref)
          WHERE pt.id = o.id AND pt.publication = o.publication AND pt.status = 'publishing')
       SELECT id FROM posts WHERE id = ANY($9::uuid[]) AND status = 'publishing' ORDER BY id FOR UPDATE`,
      [
        outcomes.map((o) => o.targetId),
        outcomes.map((o) => o.publication),
        outcomes.map((o) => o.status),
        outcomes.map((o) => o.platformPostId),
        outcomes.map((o) => o.url),
        outcomes.map((o) => o.dueAt?.toISOString() ?? null),
        outcomes.map((o) => o.errorCode),
        outcomes.map((o) => o.errorMessage),
        postIds,
        outcomes.map((o) => o.refundAttempt === true),
        outcomes.map((o) => (o.replyRef ? JSON.stringify(o.replyRef) : null)),
      ],
    );
    return locked.map((r) => r.id);
  }

  /**
   * Posts (locked by the caller) with no target left pending or publishing become `published` (all
   * targets published) or `failed`; returns them with their targets and parts. The lock was taken by an
   * earlier statement, so this one runs on a fresh snapshot that sees every concurrent outcome committed
   * before the lock was granted: exactly one of the concurrent last targets settles its post.
   */
  async settle(em: EntityManager, lockedPostIds: string[]): Promise<SettledPost[]> {
    if (lockedPostIds.length === 0) return [];
    const settled = await runSql<{ post: Row; targets: Row[]; parts: Row[] | null }>(
      em,
      `WITH agg AS (
         SELECT post_id, bool_and(status = 'published') AS all_published, max(published_at) AS last_published
           FROM post_targets WHERE post_id = ANY($1::uuid[])
          GROUP BY post_id HAVING NOT bool_or(status IN ('pending', 'publishing'))),
       s AS (
         UPDATE posts p
            SET status = CASE WHEN agg.all_published THEN 'published' ELSE 'failed' END,
                published_at = CASE WHEN agg.all_published THEN agg.last_published END, updated_at = now()
           FROM agg WHERE p.id = agg.post_id
         RETURNING ${qualified('p', POST_COLUMNS)})
       SELECT row_to_json(s) AS post,
              (SELECT json_agg(row_to_json(t)) FROM (SELECT ${TARGET_COLUMNS} FROM post_targets WHERE post_id = s.id) t)
                AS targets,
              (SELECT json_agg(row_to_json(pp)) FROM (
                 SELECT ${qualified('x', PART_COLUMNS)} FROM post_target_parts x
                   JOIN post_targets pt ON pt.id = x.target_id WHERE pt.post_id = s.id) pp) AS parts
         FROM s`,
      [lockedPostIds],
    );
    return settled.map((r) => ({
      post: toPost(reviveDates(r.post)),
      targets: r.targets.map((t) => toTarget(reviveDates(t))),
      parts: (r.parts ?? []).map((p) => toPart(reviveDates(p))),
    }));
  }

  /** Targets whose claim expired (their worker died mid-publish) go back to pending, due now. */
  async releaseExpiredClaims(em: EntityManager): Promise<void> {
    await em.query(
      `UPDATE post_targets SET status = 'pending', claim_job_id = NULL, claimed_until = NULL, due_at = now(), updated_at = now()
        WHERE status = 'publishing' AND claimed_until < now()`,
    );
  }

  /**
   * Pending targets of the current publication of scheduled or publishing posts, due within
   * `horizonMs`, by id after `afterId`, at most `limit`.
   */
  async dueTargets(em: EntityManager, horizonMs: number, afterId: string, limit: number): Promise<EnqueueableTarget[]> {
    const rows = await em.query<Row[]>(
      `SELECT ${qualified('t', DUE_TARGET_COLUMNS)} FROM post_targets t JOIN posts p ON p.id = t.post_id
        WHERE t.status = 'pending' AND t.due_at IS NOT NULL AND t.due_at <= now() + ($1 || ' milliseconds')::interval
          AND p.status IN ('scheduled', 'publishing') AND t.publication = p.publication AND t.id > $2
        ORDER BY t.id LIMIT $3`,
      [String(horizonMs), afterId, limit],
    );
    return rows.map(toDueTarget);
  }
}

/** `a, b` -> `t.a, t.b`. */
function qualified(prefix: string, columns: string): string {
  return columns
    .split(',')
    .map((c) => `${prefix}.${c.trim()}`)
    .join(', ');
}

/** row_to_json gives timestamps as strings; the entities carry Dates. */
function reviveDates(row: Row): Row {
  for (const key of Object.keys(row)) {
    const v = row[key];
    if ((key.endsWith('_at') || key.endsWith('claimed_until')) && typeof v === 'string') row[key] = new Date(v);
  }
  return row;
}
