import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/errors';
import { PostingSchedulesService } from '../posting-schedules/posting-schedules.service';
import type { PostProblemDto } from './dto/post.dto';
import { PostQueueSlotsStore } from './post-queue-slots.store';

const DAY = 86_400_000;
/** How far ahead a queued post looks for a slot its channels share. */
export const QUEUE_HORIZON_DAYS = 60;
/** A queued post's slot is at least this far ahead, so it is still in the future once saved. */
const QUEUE_LEAD_MS = 1_000;

/**
 * `queue: true` on a post (docs/adr/0032-posting-schedules.md): the earliest instant that is a slot of
 * every channel's posting schedule and free on all of them, taken in the caller's transaction. The
 * slot rows' primary key (channel, instant) decides between concurrent requests: a request that finds
 * an instant taken moves on to the next one, so none retries its whole transaction. Requests on the same
 * channels take turns on an advisory lock first, so a burst does not have all of them try each instant.
 */
@Injectable()
export class PostQueueingService {
  constructor(
    private readonly schedules: PostingSchedulesService,
    private readonly slots: PostQueueSlotsStore,
  ) {}

  /** Takes the post's slot on every channel and returns it; 400 naming `queue` when there is none. */
  async reserve(em: EntityManager, workspaceId: string, postId: string, channelIds: string[]): Promise<Date> {
    // Every read on the transaction's connection: waiting for a second one while holding the turn could
    // starve the pool under a burst.
    const { schedules, unscheduled } = await this.schedules.forQueue(workspaceId, channelIds, em);
    if (unscheduled.length) throw AppError.invalid(unscheduled.map((id) => this.unscheduledProblem(id)));
    await this.slots.takeTurns(em, channelIds);
    const now = Date.now();
    const from = now + QUEUE_LEAD_MS;
    const until = now + QUEUE_HORIZON_DAYS * DAY;
    const occupied = await this.slots.occupied(workspaceId, channelIds, new Date(from), new Date(until), {
      em,
      exceptPostId: postId,
    });
    for (const at of this.schedules.commonFreeInstants(schedules, occupied, from, until)) {
      if (await this.slots.claim(em, workspaceId, postId, channelIds, new Date(at))) return new Date(at);
    }
    throw AppError.invalid([{ field: 'queue', message: this.noSlotMessage(channelIds.length) }]);
  }

  /** Frees the slots the post holds (a PUT, before it is queued again or scheduled otherwise). */
  release(em: EntityManager, postId: string): Promise<void> {
    return this.slots.release(em, postId);
  }

  /** For POST /posts/validate: why `queue: true` would be refused now (nothing is taken). */
  async problems(workspaceId: string, channelIds: string[]): Promise<PostProblemDto[]> {
    const { schedules, unscheduled } = await this.schedules.forQueue(workspaceId, channelIds);
    if (unscheduled.length) return unscheduled.map((id) => ({ channelId: id, ...this.unscheduledProblem(id) }));
    const now = Date.now();
    const from = now + QUEUE_LEAD_MS;
    const until = now + QUEUE_HORIZON_DAYS * DAY;
    const occupied = await this.slots.occupied(workspaceId, channelIds, new Date(from), new Date(until));
    const first = this.schedules.commonFreeInstants(schedules, occupied, from, until)[Symbol.iterator]().next();
    return first.done ? [{ channelId: null, field: 'queue', message: this.noSlotMessage(channelIds.length) }] : [];
  }

  private unscheduledProblem(channelId: string) {
    return {
      field: 'queue',
      message: `cannot be used: channel ${channelId} has no posting schedule with slots (PUT /api/channels/${channelId}/schedule sets one)`,
    };
  }

  private noSlotMessage(channels: number): string {
    return channels > 1
      ? `cannot be used: the channels share no free slot within ${QUEUE_HORIZON_DAYS} days (give their schedules a common time, or use scheduledAt)`
      : `cannot be used: the channel has no free slot within ${QUEUE_HORIZON_DAYS} days (add slots, or use scheduledAt)`;
  }
}
