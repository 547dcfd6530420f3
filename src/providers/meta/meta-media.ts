import type { PublishMedia } from '../social-provider.interface';

/**
 * The public URL Meta's servers download an image from: a fresh signed URL of our media route, of
 * the item converted to `mimeType` when the network takes only that type (Instagram: JPEG; the copy
 * is made once and kept with the item).
 */
export async function publicImageUrl(media: PublishMedia, mimeType?: string): Promise<string> {
  return (mimeType ? await media.as(mimeType) : media).publicUrl();
}

/** The media's alt text for a Graph parameter (undefined leaves the parameter out). */
export function altTextOf(media: PublishMedia): string | undefined {
  const text = media.altText?.trim();
  return text ? text : undefined;
}
