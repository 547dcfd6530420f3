import { isVideoMedia } from './draft-validation.util';
import { asString } from './provider-json.util';
import { MediaRejectedError } from './provider.errors';
import type { PublishMedia, VideoLimits, VideoRequirementsForPublish } from './social-provider.interface';

/**
 * What a network's publisher asks of a video: its limits, and what it takes as a file (H.264/AAC MP4
 * for most), so that a HEVC MOV or a WebM is converted once in the media module's background job.
 */
export function videoRequirements(
  label: string,
  limits: VideoLimits,
  file: Pick<VideoRequirementsForPublish, 'mimeTypes' | 'faststart' | 'pixelFormats'> = {},
): VideoRequirementsForPublish {
  return { ...limits, ...file, label };
}

/**
 * The post's video (the networks of this module take one per post, never beside images), as the
 * network takes it: itself or its converted copy. Throws ProcessingPendingError while the copy is
 * being made (nothing was sent yet) and MediaRejectedError when nothing makes it acceptable.
 */
export async function videoToSend(
  media: PublishMedia[],
  requirements: VideoRequirementsForPublish,
): Promise<PublishMedia | null> {
  const videos = media.filter((m) => isVideoMedia(m));
  if (videos.length === 0) return null;
  if (videos.length > 1 || media.length > 1) {
    throw new MediaRejectedError(`${requirements.label ?? 'The network'} takes one video per post, without images`);
  }
  const [video] = videos;
  return video.asVideo ? video.asVideo(requirements) : video;
}

/** The network's id of the video an earlier attempt sent, kept in the checkpoint under `key`. */
export function sentVideoId(checkpoint: Record<string, unknown> | null, key: string): string | undefined {
  return asString(checkpoint?.[key]);
}

/** The pause between two status polls of a video when the network gives no hint of its own. */
export const DEFAULT_VIDEO_POLL_MS = 2000;

/** How long to wait before the next status poll: the network's hint in seconds, within 1 s .. 60 s. */
export function pollDelayMs(hintSeconds: number | undefined, fallbackMs = DEFAULT_VIDEO_POLL_MS): number {
  if (hintSeconds === undefined || !Number.isFinite(hintSeconds) || hintSeconds <= 0) return fallbackMs;
  return Math.min(60_000, Math.max(1000, Math.round(hintSeconds * 1000)));
}
