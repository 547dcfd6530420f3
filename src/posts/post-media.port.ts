import { Readable } from 'node:stream';
import type { VideoRequirementsForPublish } from '../providers/social-provider.interface';

/** What posts need from the media module (kept as a port so the arrow points one way). */
export interface PostMediaItem {
  id: string;
  status: string;
  filename: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
  altText: string | null;
  /** A video's probe (null for images): duration in ms, frames per second, codecs, bits/s. */
  durationMs: number | null;
  frameRate: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
  bitrate: number | null;
}

/** A media item converted to another type (kept with the item). */
export interface PostMediaVariant {
  mimeType: string;
  size: number;
  width: number;
  height: number;
}

/** What a network requires of a video (the provider's `VideoRequirementsForPublish`). */
export type PostVideoRequirements = VideoRequirementsForPublish;

/** A video as a network takes it: ready (the original, `variant` null, or a converted copy), being converted, or refused. */
export type PostVideoForNetwork =
  | { state: 'ready'; variant: string | null; mimeType: string; size: number }
  | { state: 'pending'; message: string }
  | { state: 'refused'; problems: string[] }
  /** The conversion was tried and failed: the target fails (VIDEO_PROCESSING_FAILED), not retried. */
  | { state: 'failed'; message: string };

/**
 * Who asks for a video and until when it waits: a conversion's budget is the waits of the targets
 * asking for it (docs/adr/0050).
 */
export interface PostVideoWait {
  /** The target's id. */
  waiter: string;
  /** When its wait for processing ends (VIDEO_PROCESSING_MAX_WAIT_SECONDS after it began). */
  until: Date;
}

export interface PostMediaPort {
  findMany(workspaceId: string, ids: string[]): Promise<PostMediaItem[]>;
  /** The item's bytes, or those of its copy in `mimeType` (made by `convert`). */
  open(mediaId: string, mimeType?: string): Readable;
  /** The item converted to `mimeType`, once; throws (an AppError) when it cannot be. */
  convert(mediaId: string, mimeType: string): Promise<PostMediaVariant>;
  /** A fresh signed public URL of the bytes (or of the copy in `mimeType`). */
  signedUrl(mediaId: string, mimeType?: string): string;
  /**
   * The video as a network takes it; a conversion it needs is made once, in a background job
   * (`pending` meanwhile). Never converts inside the call.
   */
  videoFor(mediaId: string, requirements: PostVideoRequirements, wait?: PostVideoWait): Promise<PostVideoForNetwork>;
  /** `waiter` (a target that published or failed) waits for no video conversion any more: one nobody waits for stops. */
  releaseVideoWaits(waiter: string): Promise<void>;
  /** The bytes of a video variant by name (from `videoFor`). */
  openVariant(mediaId: string, variant: string): Readable;
  /** A fresh signed public URL of a variant by name. */
  signedVariantUrl(mediaId: string, variant: string): string;
  /** A signed public URL of the bytes that does not expire, the same at every call (Nostr notes link it). */
  permanentUrl(mediaId: string): string;
}

export const POST_MEDIA = Symbol('POST_MEDIA');
