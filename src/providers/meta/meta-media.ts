import { MediaRejectedError } from '../provider.errors';
import type { PublishMedia } from '../social-provider.interface';

/**
 * The public URL Meta's servers download an image from: a fresh signed URL of our media route, or
 * of the item converted to `mimeType` when the network takes only that type (Instagram: JPEG).
 */
export async function publicImageUrl(media: PublishMedia, mimeType?: string): Promise<string> {
  void mimeType;
  throw new MediaRejectedError(`Media ${media.id} has no public URL yet`);
}
