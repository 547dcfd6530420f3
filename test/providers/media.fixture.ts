import { Readable } from 'node:stream';
import { MediaRejectedError } from '../../src/providers/provider.errors';
import type { PublishMedia } from '../../src/providers/social-provider.interface';

/** A valid 1x1 RGBA PNG (70 bytes). */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A valid 1x1 baseline JPEG (268 bytes). */
export const TINY_JPEG = Buffer.from(
  '/9j/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAABAAEDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAP/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAABv/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AJAB58//2Q==',
  'base64',
);

/**
 * A PublishMedia over an in-memory buffer, streamed in small chunks. Its public URL is a placeholder
 * (a provider that fetches media needs the real service: see the e2e specs); `as` another type fails
 * as the publisher's does when a conversion is impossible.
 */
export function mediaFrom(bytes: Buffer, overrides: Partial<Omit<PublishMedia, 'open'>> = {}): PublishMedia {
  const media: PublishMedia = {
    id: 'media-1',
    mimeType: 'image/png',
    size: bytes.length,
    width: 1,
    height: 1,
    filename: 'pixel.png',
    altText: null,
    publicUrl: () => Promise.resolve(`http://127.0.0.1:9/api/media/${media.id}/content`),
    as: (mimeType) =>
      mimeType === media.mimeType
        ? Promise.resolve(media)
        : Promise.reject(new MediaRejectedError(`The fixture cannot convert to ${mimeType}`)),
    ...overrides,
    open: () => Readable.from([bytes.subarray(0, 16), bytes.subarray(16)]),
  };
  return media;
}
