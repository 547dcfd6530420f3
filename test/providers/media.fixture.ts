import { Readable } from 'node:stream';
import type { PublishMedia } from '../../src/providers/social-provider.interface';

/** A valid 1x1 RGBA PNG (70 bytes). */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A PublishMedia over an in-memory buffer, streamed in small chunks. */
export function mediaFrom(bytes: Buffer, overrides: Partial<Omit<PublishMedia, 'open'>> = {}): PublishMedia {
  return {
    id: 'media-1',
    mimeType: 'image/png',
    size: bytes.length,
    width: 1,
    height: 1,
    filename: 'pixel.png',
    ...overrides,
    open: () => Readable.from([bytes.subarray(0, 16), bytes.subarray(16)]),
  };
}
