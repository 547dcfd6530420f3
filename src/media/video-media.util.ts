import type { MediaItem } from './media-item.entity';
import type { VideoProbe } from './video/video.interface';
import { ImageSlots } from './image-slots';

/** The variant name of a video's poster frame (a JPEG), in storage and in signed URLs. */
export const POSTER_VARIANT = 'poster';

/** The video types the service probes at finalize. */
export const VIDEO_TYPES: ReadonlySet<string> = new Set(['video/mp4', 'video/quicktime', 'video/webm']);

export function isVideoType(mimeType: string): boolean {
  return VIDEO_TYPES.has(mimeType);
}

/**
 * The videos one process probes or converts at a time (MEDIA_VIDEO_CONCURRENCY): ffprobe/ffmpeg run as
 * child processes (never on the event loop), and these slots bound how many run at once. A caller takes
 * its slot before it opens a transaction, so waiting holds no database connection.
 */
export class VideoSlots extends ImageSlots {}

/** The columns of a media item a probe fills (width and height as displayed, rotation applied). */
export function probeColumns(
  probe: VideoProbe,
): Pick<
  MediaItem,
  | 'width'
  | 'height'
  | 'durationMs'
  | 'frameRate'
  | 'videoCodec'
  | 'audioCodec'
  | 'bitrate'
  | 'faststart'
  | 'pixelFormat'
> {
  return {
    width: probe.width,
    height: probe.height,
    durationMs: Math.round(probe.durationMs),
    frameRate: probe.frameRate === null ? null : Math.round(probe.frameRate * 1000) / 1000,
    videoCodec: probe.videoCodec,
    audioCodec: probe.audioCodec,
    bitrate: probe.bitrate === null ? null : Math.round(probe.bitrate),
    faststart: probe.faststart,
    pixelFormat: probe.pixelFormat,
  };
}

/**
 * What a video item is, for validation and conversion decisions: the probe's fields as the item stores
 * them (a `VideoProbe` with what finalize did not keep filled from what it did).
 */
export function probeOfItem(item: MediaItem): VideoProbe | null {
  if (item.durationMs === null || item.videoCodec === null || item.width === null || item.height === null) return null;
  const container = item.mimeType === 'video/webm' ? 'webm' : item.mimeType === 'video/quicktime' ? 'quicktime' : 'mp4';
  return {
    container,
    mimeType: item.mimeType as VideoProbe['mimeType'],
    formatName: container === 'webm' ? 'matroska,webm' : 'mov,mp4,m4a,3gp,3g2,mj2',
    sizeBytes: item.size,
    durationMs: item.durationMs,
    width: item.width,
    height: item.height,
    codedWidth: item.width,
    codedHeight: item.height,
    rotation: 0,
    frameRate: item.frameRate,
    videoCodec: item.videoCodec,
    videoProfile: null,
    pixelFormat: item.pixelFormat,
    videoBitrate: null,
    audioCodec: item.audioCodec,
    audioChannels: null,
    audioSampleRate: null,
    bitrate: item.bitrate,
    faststart: item.faststart,
  };
}
