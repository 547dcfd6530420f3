import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { SlotOccupancy } from '../posting-schedules/slot-occupancy.port';

/** The columns of a slot row, as the claim writes them (checked by test/database/row-mappings). */
export const QUEUE_SLOT_COLUMNS = 'channel_id, slot_at, post_id, workspace_id';

/**
 * The `post_queue_slots` table (owned by posts): the schedule slots queued posts hold, one row per
 * channel and instant (docs/adr/0032-posting-schedules.md), and the instants posts occupy on channels.
 */
@Injectable()
export class PostQueueSlotsStore implements SlotOccupancy {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Per channel, the instants in [from, until) a post of the workspace occupies: a queued post's slot, or
   * the time of a scheduled post. A post being queued passes its transaction (so slots it freed count as
   * free) and its id (its own time is no obstacle).
   */
  async occupied(
    workspaceId: string,
    channelIds: string[],
    from: Date,
    until: Date,
    opts: { em?: EntityManager; exceptPostId?: string } = {},
  ): Promise<Map<string, Set<number>>> {
    const em = opts.em ?? this.dataSource.manager;
    const taken = new Map<string, Set<number>>(channelIds.map((id) => [id, new Set<number>()]));
    if (channelIds.length === 0) return taken;
    const rows = await em.query<Array<{ channel_id: string; at: Date }>>(
      `SELECT s.channel_id, s.slot_at AS at FROM post_queue_slots s
        WHERE s.workspace_id = $1 AND s.channel_id = ANY($2::uuid[]) AND s.slot_at >= $3 AND s.slot_at < $4
          AND s.post_id IS DISTINCT FROM $5
       UNION
       SELECT t.channel_id, p.scheduled_at AS at FROM posts p JOIN post_targets t ON t.post_id = p.id
        WHERE p.workspace_id = $1 AND t.channel_id = ANY($2::uuid[]) AND p.status = 'scheduled'
          AND p.scheduled_at >= $3 AND p.scheduled_at < $4 AND p.id IS DISTINCT FROM $5`,
      [workspaceId, channelIds, from, until, opts.exceptPostId ?? null],
    );
    for (const r of rows) taken.get(r.channel_id)?.add(new Date(r.at).getTime());
    return taken;
  }

  /**
   * Makes the transactions queueing posts on these channels take turns (a transaction-scoped advisory
   * lock per channel, taken in channel order), so a burst of queued posts does not have every request
   * try the same instant. The primary key still decides which post holds an instant.
   */
  async takeTurns(em: EntityManager, channelIds: string[]): Promise<void> {
    const channels = [...new Set(channelIds)].sort();
    // unnest() yields the sorted array in order, so the locks are taken in that order.
    await em.query(`SELECT pg_advisory_xact_lock(hashtext('post-queue'), hashtext(c)) FROM unnest($1::text[]) AS c`, [
      channels,
    ]);
  }

  /**
   * Takes instant `at` on every one of the channels for the post, or on none: true when all were free.
   * The primary key decides between concurrent transactions (one waits for the other's commit, then
   * finds the row taken); rows are inserted in channel order so two multi-channel claims cannot deadlock.
   */
  async claim(
    em: EntityManager,
    workspaceId: string,
    postId: string,
    channelIds: string[],
    at: Date,
  ): Promise<boolean> {
    const channels = [...new Set(channelIds)].sort();
    const rows = await em.query<Array<{ channel_id: string }>>(
      `INSERT INTO post_queue_slots (${QUEUE_SLOT_COLUMNS})
       SELECT c, $2, $3, $4 FROM unnest($1::uuid[]) AS c ORDER BY c
       ON CONFLICT (channel_id, slot_at) DO NOTHING
       RETURNING channel_id`,
      [channels, at, postId, workspaceId],
    );
    if (rows.length === channels.length) return true;
    if (rows.length > 0) {
      await em.query(`DELETE FROM post_queue_slots WHERE post_id = $1 AND slot_at = $2`, [postId, at]);
    }
    return false;
  }

  /** Frees every slot the post holds. */
  async release(em: EntityManager, postId: string): Promise<void> {
    await em.query(`DELETE FROM post_queue_slots WHERE post_id = $1`, [postId]);
  }
}
