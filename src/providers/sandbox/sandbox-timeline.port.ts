/**
 * The sandbox network's side of publishing: what its adapter needs from the storage of its
 * timelines. The provider owns this port; the sandbox feature (`src/sandbox/`, owner of the
 * `sandbox_posts` table) implements it, and the application binds the two, so `src/providers/`
 * imports no feature.
 */

/** One attachment as the sandbox network received it. */
export interface SandboxMedia {
  id: string;
  mimeType: string;
  size: number;
  /** Hex SHA-256 of the bytes the network read. */
  sha256: string;
  /** A video's duration in milliseconds (absent for images). */
  durationMs?: number | null;
}

/** The target's options as the sandbox timeline shows them (defaults filled in). */
export interface SandboxPostOptions {
  visibility: 'public' | 'unlisted' | 'private';
  contentWarning: string | null;
}

/**
 * A post on a sandbox account's timeline. One per publication (account + idempotency key): created
 * at the first attempt, it counts attempts and is on the timeline once `publishedAt` is set.
 */
export interface SandboxTimelinePost {
  id: string;
  /** The sandbox account (the channel's `externalId`). */
  accountId: string;
  idempotencyKey: string;
  /** Attempts to publish this post so far, this one included. */
  attempts: number;
  content: string;
  media: SandboxMedia[];
  inReplyTo: string | null;
  /** The options it was published with (empty on posts from before options). */
  options: Partial<SandboxPostOptions>;
  /** When the post appeared on the timeline; null while its attempts fail. */
  publishedAt: Date | null;
  createdAt: Date;
}

/**
 * The timelines, as the sandbox adapter calls them (the part HTTP calls play for other networks).
 * An abstract class so it is also the injection token the plugin lists in `inject`.
 */
export abstract class SandboxTimeline {
  /** Counts one attempt of a publication, creating its row on the first; returns the row after counting. */
  abstract attempt(accountId: string, idempotencyKey: string): Promise<SandboxTimelinePost>;
  /**
   * Puts the attempted post on the timeline (as a reply to `inReplyTo` when given); a post already
   * there is returned unchanged.
   */
  abstract publish(
    id: string,
    content: string,
    media: SandboxMedia[],
    inReplyTo?: string | null,
    options?: SandboxPostOptions,
  ): Promise<SandboxTimelinePost>;
  /** A published post of the account, or null. */
  abstract find(accountId: string, id: string): Promise<SandboxTimelinePost | null>;
  /** The network forgets the account and its timeline (its authorization was revoked). */
  abstract forgetAccount(accountId: string): Promise<void>;
}
