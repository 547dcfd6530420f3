import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runSql } from '../database/direct-query';
import { TARGET_COLUMNS, toPost, toTarget } from './post-rows';
import { PostTarget } from './post-target.entity';
import { Post } from './post.entity';
import type { DueComment } from './first-comment.queue';

type Row = Record<string, unknown>;

/** The target's columns, qualified for the claim's RETURNING. */
const CLAIMED_COLUMNS = TARGET_COLUMNS.split(',')
  .map((c) => `pt.${c.trim()}`)
  .join(', ');

/** What one comment becomes for an attempt's outcome. */
export interface CommentOutcome {
  status: 'published' | 'pending' | 'failed';
  platformId: string | null;
  url: string | null;
  error: string | null;
  /** The next attempt (pending only). */
  dueAt: Date | null;
}

/** A target whose comment a job holds, with its post and the first part of its thread (if any). */
export interface ClaimedComment {
  target: PostTarget;
  post: Post;
  /** The thread's first part as published (the post to comment on when the target has parts). */
  root: { platformPostId: string; url: string; replyRef: Record<string, string> | null } | null;
}

/**
 * The first-comment columns of `post_targets` (owned by posts, docs/adr/0035): the claim, the outcome
 * and the reconciler's reads. Never writes the target's own status.
 */
@Injectable()
export class FirstCommentsStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Takes a target's comment for `jobId` if its target is published in that publication, the comment is
   * pending and due, and no other live job holds it; null when the job has nothing to do.
   */
  async claim(targetId: string, publication: number, jobId: string, claimMs: number): Promise<ClaimedComment | null> {
    const rows = await runSql<{ target: Row; post: Row; root: Row | null }>(
      this.dataSource,
      `WITH t AS (
         UPDATE post_targets pt
            SET first_comment_attempts = pt.first_comment_attempts + 1, first_comment_claim_job_id = $3,
                first_comment_claimed_until = now() + ($4 || ' milliseconds')::interval, updated_at = now()
          WHERE pt.id = $1 AND pt.publication = $2 AND pt.status = 'published'
            AND pt.first_comment_status = 'pending'
            AND (pt.first_comment_due_at IS NULL OR pt.first_comment_due_at <= now() + interval '1 second')
            AND (pt.first_comment_claim_job_id IS NULL OR pt.first_comment_claim_job_id = $3
                 OR pt.first_comment_claimed_until < now())
          RETURNING ${CLAIMED_COLUMNS})
       SELECT row_to_json(t) AS target, row_to_json(po) AS post,
              (SELECT row_to_json(r) FROM (
                 SELECT platform_post_id AS "platformPostId", url, reply_ref AS "replyRef"
                   FROM post_target_parts WHERE target_id = t.id AND index = 0) r) AS root
         FROM t JOIN posts po ON po.id = t.post_id`,
      [targetId, publication, jobId, String(claimMs)],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      target: toTarget(reviveDates(row.target)),
      post: toPost(reviveDates(row.post)),
      root: (row.root as ClaimedComment['root']) ?? null,
    };
  }

  /**
   * Writes the comment's outcome if `jobId` still holds it; returns whether it did (a job whose claim
   * expired and was taken over writes nothing).
   */
  async record(em: EntityManager, targetId: string, jobId: string, outcome: CommentOutcome): Promise<boolean> {
    const rows = await runSql<{ id: string }>(
      em,
      `UPDATE post_targets
          SET first_comment_status = $3, first_comment_platform_id = $4, first_comment_url = $5,
              first_comment_error = $6, first_comment_due_at = $7,
              first_comment_claim_job_id = NULL, first_comment_claimed_until = NULL, updated_at = now()
        WHERE id = $1 AND first_comment_claim_job_id = $2 AND first_comment_status = 'pending'
        RETURNING id`,
      [
        targetId,
        jobId,
        outcome.status,
        outcome.platformId,
        outcome.url,
        outcome.error,
        outcome.dueAt?.toISOString() ?? null,
      ],
    );
    return rows.length > 0;
  }

  /**
   * Comments of published targets (current publication) that are pending and due within `horizonMs`,
   * claimed by no live job, by target id after `afterId`, at most `limit`.
   */
  async due(em: EntityManager, horizonMs: number, afterId: string, limit: number): Promise<DueComment[]> {
    const rows = await em.query<Row[]>(
      `SELECT t.id, t.publication, t.first_comment_attempts, t.first_comment_due_at
         FROM post_targets t JOIN posts p ON p.id = t.post_id
        WHERE t.first_comment_status = 'pending' AND t.status = 'published' AND t.publication = p.publication
          AND (t.first_comment_due_at IS NULL OR t.first_comment_due_at <= now() + ($1 || ' milliseconds')::interval)
          AND (t.first_comment_claim_job_id IS NULL OR t.first_comment_claimed_until < now())
          AND t.id > $2
        ORDER BY t.id LIMIT $3`,
      [String(horizonMs), afterId, limit],
    );
    return rows.map((r) => ({
      id: r.id as string,
      publication: r.publication as number,
      attempts: r.first_comment_attempts as number,
      dueAt: (r.first_comment_due_at as Date | null) ?? null,
    }));
  }
}

/** row_to_json gives timestamps as strings; the entities carry Dates. */
function reviveDates(row: Row): Row {
  for (const key of Object.keys(row)) {
    const v = row[key];
    if ((key.endsWith('_at') || key.endsWith('claimed_until')) && typeof v === 'string') row[key] = new Date(v);
  }
  return row;
}
