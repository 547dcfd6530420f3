import { AppError } from '../common/errors';
import { MediaItem, MediaStatus } from './media-item.entity';

/** The states in which an item takes bytes: a client's chunked upload, or a background download from a URL. */
export type ReceivingStatus = Extract<MediaStatus, 'uploading' | 'processing'>;

/** Strips directories and control characters from a client-supplied file name. */
export function cleanFilename(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base.slice(0, 255) || 'file';
}

/** Alt text as stored: null for none (absent, null, or only white space). */
export function cleanAltText(text: string | null | undefined): string | null {
  return text && text.trim() ? text : null;
}

/** Refuses (409) bytes for an item that no longer takes them in state `via`, or whose upload expired. */
export function assertReceiving(item: MediaItem, via: ReceivingStatus): void {
  if (item.status !== via) {
    throw AppError.conflict(
      item.status === 'ready' ? 'Media upload is already finalized' : `Media upload is ${item.status}`,
    );
  }
  if (item.expiresAt && item.expiresAt.getTime() <= Date.now()) throw AppError.conflict('Media upload is expired');
}
