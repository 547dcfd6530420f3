import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PART_COLUMNS, toPart } from './post-rows';
import { PostTargetPart } from './post-target-part.entity';

/** A part the network accepted, to record. */
export interface PublishedPart {
  index: number;
  platformPostId: string;
  url: string;
  replyRef: Record<string, string> | null;
}

/** The `post_target_parts` table (owned by posts): the published parts of threads, per target. */
@Injectable()
export class PostTargetPartsStore {
  constructor(private readonly dataSource: DataSource) {}

  /** The recorded parts of these targets, by target then index. */
  async forTargets(targetIds: string[], em: EntityManager = this.dataSource.manager): Promise<PostTargetPart[]> {
    if (targetIds.length === 0) return [];
    const rows = await em.query<Array<Record<string, unknown>>>(
      `SELECT ${PART_COLUMNS} FROM post_target_parts WHERE target_id = ANY($1::uuid[]) ORDER BY target_id, index`,
      [targetIds],
    );
    return rows.map(toPart);
  }

  /**
   * Records a part the network accepted, in one statement that also extends the target's claim by
   * `claimMs` if `jobId` still holds it. The part is recorded either way (it is on the network); the
   * answer says whether the job may go on with the next part.
   */
  async record(targetId: string, jobId: string, part: PublishedPart, claimMs: number): Promise<boolean> {
    const [row] = await this.dataSource.query<Array<{ held: boolean }>>(
      `WITH held AS (
         UPDATE post_targets SET claimed_until = now() + ($7 || ' milliseconds')::interval, updated_at = now()
          WHERE id = $1 AND claim_job_id = $2 AND status = 'publishing'
          RETURNING id),
       ins AS (
         INSERT INTO post_target_parts (target_id, index, platform_post_id, url, reply_ref, published_at)
         VALUES ($1, $3, $4, $5, $6::jsonb, now())
         ON CONFLICT (target_id, index) DO NOTHING)
       SELECT EXISTS (SELECT 1 FROM held) AS held`,
      [
        targetId,
        jobId,
        part.index,
        part.platformPostId,
        part.url,
        part.replyRef === null ? null : JSON.stringify(part.replyRef),
        String(claimMs),
      ],
    );
    return row.held;
  }
}
