import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Largest checkpoint accepted, in bytes of JSON (ids and states, never media). */
const MAX_STATE_BYTES = 16 * 1024;

/** Columns a checkpoint is saved with (raw SQL; checked against the entity by test/database/row-mappings). */
export const CHECKPOINT_COLUMNS = 'target_id, publication, index, state, updated_at';

/** The `post_target_checkpoints` table (owned by posts): adapters' publish checkpoints (docs/adr/0023). */
@Injectable()
export class PostTargetCheckpointsStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Saves the checkpoint of one part of a target's publication, in one statement that also extends
   * the target's claim by `claimMs` when `jobId` still holds it (waiting for a container to be
   * processed takes time). Saved either way: it describes what is on the network.
   */
  async save(
    targetId: string,
    publication: number,
    index: number,
    state: Record<string, unknown>,
    jobId: string,
    claimMs: number,
  ): Promise<void> {
    const json = JSON.stringify(state);
    if (Buffer.byteLength(json) > MAX_STATE_BYTES) throw new Error('A publish checkpoint is limited to 16 KiB');
    await this.dataSource.query(
      `WITH held AS (
         UPDATE post_targets SET claimed_until = now() + ($6 || ' milliseconds')::interval, updated_at = now()
          WHERE id = $1 AND claim_job_id = $5 AND status = 'publishing'
          RETURNING id)
       INSERT INTO post_target_checkpoints (${CHECKPOINT_COLUMNS})
       VALUES ($1, $2, $3, $4::jsonb, now())
       ON CONFLICT (target_id, publication, index) DO UPDATE SET state = EXCLUDED.state, updated_at = now()`,
      [targetId, publication, index, json, jobId, String(claimMs)],
    );
  }

  /** The checkpoints of a post's targets (of the workspace's post), by channel, publication and part. */
  async ofPost(workspaceId: string, postId: string): Promise<PostCheckpoint[]> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT t.channel_id, c.publication, c.index, c.state, c.updated_at
         FROM post_target_checkpoints c
         JOIN post_targets t ON t.id = c.target_id
         JOIN posts p ON p.id = t.post_id
        WHERE p.workspace_id = $1 AND p.id = $2
        ORDER BY t.position, c.publication, c.index`,
      [workspaceId, postId],
    );
    return rows.map((r) => ({
      channelId: r.channel_id as string,
      publication: r.publication as number,
      index: r.index as number,
      state: r.state as Record<string, unknown>,
      updatedAt: r.updated_at as Date,
    }));
  }
}

/** A saved checkpoint of one part of one channel's publication, as the console's post page lists it. */
export interface PostCheckpoint {
  channelId: string;
  publication: number;
  index: number;
  state: Record<string, unknown>;
  updatedAt: Date;
}
