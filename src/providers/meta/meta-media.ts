import { setting } from '../../config/settings';
import type { PublishMedia, VideoLimits, VideoRequirementsForPublish } from '../social-provider.interface';

/**
 * The public URL Meta's servers download an image from: a fresh signed URL of our media route, of
 * the item converted to `mimeType` when the network takes only that type (Instagram: JPEG; the copy
 * is made once and kept with the item).
 */
export async function publicImageUrl(media: PublishMedia, mimeType?: string): Promise<string> {
  return (mimeType ? await media.as(mimeType) : media).publicUrl();
}

/**
 * The public URL Meta's servers download a video from: the signed URL of the item as the network
 * takes it (itself, or the copy the media module converted once in a background job: H.264/AAC MP4
 * with its index first). While that copy is being made this throws ProcessingPendingError, and the
 * publisher comes back later; what no conversion fixes throws MediaRejectedError.
 */
export async function publicVideoUrl(media: PublishMedia, requirements: VideoRequirementsForPublish): Promise<string> {
  return (media.asVideo ? await media.asVideo(requirements) : media).publicUrl();
}

/**
 * What a Meta network requires of the file it downloads, from its video limits: MP4 or MOV only
 * (a WebM is converted), the documented codecs, and the index first (Meta downloads progressively).
 */
export function metaVideoRequirements(label: string, limits: VideoLimits): VideoRequirementsForPublish {
  return {
    ...limits,
    label,
    mimeTypes: limits.mimeTypes.filter((t) => t !== 'video/webm'),
    faststart: true,
  };
}

/** The media's alt text for a Graph parameter (undefined leaves the parameter out). */
export function altTextOf(media: PublishMedia): string | undefined {
  const text = media.altText?.trim();
  return text ? text : undefined;
}

/** Video settings shared by Threads, Instagram and Facebook (declared by the three plugins, read once). */
export const META_VIDEO_SETTINGS = {
  videoPollMs: setting.int('META_VIDEO_POLL_MS', {
    default: 15_000,
    min: 250,
    max: 600_000,
    description:
      'Threads, Instagram and Facebook: pause between two reads of a video being processed by the network (each read is a delayed job; no worker waits)',
  }),
};
