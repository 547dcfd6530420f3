import { AppError } from '../common/errors';
import { MediaRejectedError, ProcessingPendingError, VideoProcessingFailedError } from '../providers/provider.errors';
import type { PublishMedia } from '../providers/social-provider.interface';
import type { PostMediaItem, PostMediaPort, PostVideoWait } from './post-media.port';

/** The target an attempt publishes, as a waiter for video conversions; `asked` once it asked for one. */
export interface VideoWaitOfAttempt extends PostVideoWait {
  asked: boolean;
  /** The target was waiting before this attempt (it may have asked for a conversion then). */
  waited?: boolean;
}

/**
 * What a provider sees of a media item: its bytes, a fresh signed public URL of them per call, and
 * copies in other types, converted once by the media module and kept with the item. A copy is asked
 * for once per object; a failed conversion is asked for again on the next call.
 */
export function publishMediaOf(media: PostMediaPort, item: PostMediaItem, wait?: VideoWaitOfAttempt): PublishMedia {
  const conversions = new Map<string, Promise<PublishMedia>>();
  const original: PublishMedia = {
    id: item.id,
    mimeType: item.mimeType,
    size: item.size,
    width: item.width,
    height: item.height,
    filename: item.filename,
    altText: item.altText,
    durationMs: item.durationMs,
    frameRate: item.frameRate,
    videoCodec: item.videoCodec,
    audioCodec: item.audioCodec,
    bitrate: item.bitrate,
    open: () => media.open(item.id),
    publicUrl: () => Promise.resolve(media.signedUrl(item.id)),
    permanentUrl: () => Promise.resolve(media.permanentUrl(item.id)),
    // Every ready video keeps its poster frame as the variant `poster`.
    ...(item.durationMs !== null
      ? { posterUrl: () => Promise.resolve(media.signedVariantUrl(item.id, 'poster')) }
      : {}),
    asVideo: async (requirements) => {
      if (wait) wait.asked = true;
      const found = await media.videoFor(
        item.id,
        requirements,
        wait ? { waiter: wait.waiter, until: wait.until } : undefined,
      );
      if (found.state === 'pending') throw new ProcessingPendingError(`Media ${item.filename}: ${found.message}`, 2000);
      if (found.state === 'refused') {
        throw new MediaRejectedError(`Media ${item.filename}: ${found.problems.join('; ')}`);
      }
      if (found.state === 'failed') {
        const who = requirements.label ? ` for ${requirements.label}` : '';
        throw new VideoProcessingFailedError(`Media ${item.filename}${who}: ${found.message}`);
      }
      if (found.variant === null) return original;
      const variant = found.variant;
      return {
        ...original,
        mimeType: found.mimeType,
        size: found.size,
        open: () => media.openVariant(item.id, variant),
        publicUrl: () => Promise.resolve(media.signedVariantUrl(item.id, variant)),
        // A copy has no permanent URL of its own (the original's would serve other bytes).
        permanentUrl: undefined,
      };
    },
    as: (mimeType) => {
      if (mimeType === item.mimeType) return Promise.resolve(original);
      let converted = conversions.get(mimeType);
      if (!converted) {
        converted = convertedCopy(media, original, mimeType);
        converted.catch(() => conversions.delete(mimeType));
        conversions.set(mimeType, converted);
      }
      return converted;
    },
  };
  return original;
}

async function convertedCopy(media: PostMediaPort, original: PublishMedia, mimeType: string): Promise<PublishMedia> {
  let variant;
  try {
    variant = await media.convert(original.id, mimeType);
  } catch (err) {
    // The media module's refusals (cannot be converted, gone, not ready) are final; anything else (storage
    // or database trouble) is left to the publisher, which retries it.
    if (!(err instanceof AppError)) throw err;
    throw new MediaRejectedError(`Media ${original.filename} cannot be converted to ${mimeType}: ${err.message}`);
  }
  const converted: PublishMedia = {
    ...original,
    mimeType: variant.mimeType,
    size: variant.size,
    width: variant.width,
    height: variant.height,
    filename: convertedFilename(original.filename, variant.mimeType),
    open: () => media.open(original.id, variant.mimeType),
    publicUrl: () => Promise.resolve(media.signedUrl(original.id, variant.mimeType)),
    permanentUrl: undefined,
    as: (other) => (other === variant.mimeType ? Promise.resolve(converted) : original.as(other)),
  };
  return converted;
}

/** `photo.png` as image/jpeg: `photo.jpeg`. */
function convertedFilename(filename: string, mimeType: string): string {
  const extension = mimeType.split('/')[1] ?? 'bin';
  return `${filename.replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'file'}.${extension}`;
}
