import { Readable } from 'node:stream';

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

export interface PostMediaPort {
  findMany(workspaceId: string, ids: string[]): Promise<PostMediaItem[]>;
  /** The item's bytes, or those of its copy in `mimeType` (made by `convert`). */
  open(mediaId: string, mimeType?: string): Readable;
  /** The item converted to `mimeType`, once; throws (an AppError) when it cannot be. */
  convert(mediaId: string, mimeType: string): Promise<PostMediaVariant>;
  /** A fresh signed public URL of the bytes (or of the copy in `mimeType`). */
  signedUrl(mediaId: string, mimeType?: string): string;
}

export const POST_MEDIA = Symbol('POST_MEDIA');
