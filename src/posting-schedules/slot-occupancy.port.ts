/**
 * Which instants of some channels are taken: a post of the workspace is scheduled or queued there
 * then. Posting schedules declare the port; the posts module, which owns the posts and their queue
 * slots, provides it (PostQueueSlotsStore, bound to SLOT_OCCUPANCY at the composition root). The free slots of
 * `GET /channels/{id}/slots` are the schedule's instants minus these.
 */
export interface SlotOccupancy {
  /** Per channel id, the taken instants (epoch ms) in [from, until). */
  occupied(workspaceId: string, channelIds: string[], from: Date, until: Date): Promise<Map<string, Set<number>>>;
}

export const SLOT_OCCUPANCY = Symbol('SLOT_OCCUPANCY');
