import type { ChannelLimits, MediaDescriptor, Problem, VideoLimits } from './social-provider.interface';

/** The video types the service accepts (probed at upload). */
const VIDEO_TYPES = new Set(['video/mp4', 'video/quicktime', 'video/webm']);

export function isVideoMedia(item: MediaDescriptor): boolean {
  return VIDEO_TYPES.has(item.mimeType.toLowerCase());
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${bytes} bytes`;
}

/** How a network's publisher sends video, as far as validation is concerned. */
export interface VideoValidationOptions {
  /**
   * True where the publisher asks the media module for the video as the network takes it
   * (`asVideo` with the network's limits): a frame rate or frame size above the network's is then
   * converted down (MEDIA_VIDEO_TRANSCODE), not refused here. False (default): the file goes as it
   * is, and what the network would refuse is refused at validation.
   */
  convertsVideo?: boolean;
}

/** Problems shared by every provider: empty post, media count, media type and size. */
export function commonDraftProblems(
  provider: string,
  content: string,
  media: MediaDescriptor[],
  limits: ChannelLimits,
  options: VideoValidationOptions = {},
): Problem[] {
  const problems: Problem[] = [];
  if (content.trim() === '' && media.length === 0) {
    problems.push({ field: 'content', message: 'The post is empty: add text or media' });
  }
  if (media.length > limits.maxMedia) {
    problems.push({
      field: 'mediaIds',
      message: `${provider} allows at most ${limits.maxMedia} media per post (got ${media.length})`,
    });
  }
  const accepted = new Set(limits.supportedMimeTypes.map((t) => t.toLowerCase()));
  problems.push(...videoProblems(provider, media, limits.video ?? null, options));
  for (const item of media) {
    if (isVideoMedia(item)) continue;
    if (!accepted.has(item.mimeType.toLowerCase())) {
      problems.push({
        field: 'mediaIds',
        message: `${provider} does not accept ${item.mimeType} (media ${item.id}); accepted: ${limits.supportedMimeTypes.join(', ')}`,
      });
    }
    if (item.size > limits.maxImageBytes) {
      problems.push({
        field: 'mediaIds',
        message: `Media ${item.id} is ${formatBytes(item.size)}; ${provider} accepts at most ${formatBytes(limits.maxImageBytes)}`,
      });
    }
  }
  return problems;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function ratio(r: number): string {
  return String(Math.round(r * 1000) / 1000);
}

/**
 * Problems of the videos of a post against the network's video limits, each at `mediaIds[i]` (its
 * place in the post's media) with a message that states the limit: no video at all where the network
 * takes none, then count, type, size, duration, shape, frame rate and resolution. What a conversion
 * of the service would fix (codecs, index position; frame rate and frame size above the network's
 * where the publisher converts, `convertsVideo`) is not a problem here.
 */
export function videoProblems(
  provider: string,
  media: MediaDescriptor[],
  video: VideoLimits | null,
  options: VideoValidationOptions = {},
): Problem[] {
  const problems: Problem[] = [];
  const videos = media.map((item, index) => ({ item, index })).filter(({ item }) => isVideoMedia(item));
  if (videos.length === 0) return problems;
  const at = (index: number) => `mediaIds[${index}]`;
  if (!video) {
    for (const { item, index } of videos) {
      problems.push({
        field: at(index),
        message: `${provider} does not take video through this service (media ${item.id} is ${item.mimeType})`,
      });
    }
    return problems;
  }
  if (videos.length > video.maxPerPost) {
    problems.push({
      field: 'mediaIds',
      message: `${provider} takes at most ${video.maxPerPost} video${video.maxPerPost === 1 ? '' : 's'} per post (got ${videos.length})`,
    });
  }
  if (video.mixWithImages === false && videos.length < media.length) {
    problems.push({ field: 'mediaIds', message: `${provider} does not take images and video in one post` });
  }
  const types = new Set(video.mimeTypes.map((t) => t.toLowerCase()));
  for (const { item, index } of videos) {
    const field = at(index);
    const name = `Video ${item.id}`;
    if (!types.has(item.mimeType.toLowerCase())) {
      problems.push({
        field,
        message: `${provider} does not take ${item.mimeType} video; it takes ${video.mimeTypes.join(', ')}`,
      });
    }
    if (item.size > video.maxBytes) {
      problems.push({
        field,
        message: `${name} is ${formatBytes(item.size)}; ${provider} takes videos of at most ${formatBytes(video.maxBytes)}`,
      });
    }
    const ms = item.durationMs ?? null;
    if (ms !== null && ms > video.maxDurationSeconds * 1000) {
      problems.push({
        field,
        message: `${name} is ${seconds(ms)} long; ${provider} takes at most ${video.maxDurationSeconds} s`,
      });
    }
    if (ms !== null && ms < video.minDurationSeconds * 1000) {
      problems.push({
        field,
        message: `${name} is ${seconds(ms)} long; ${provider} takes at least ${video.minDurationSeconds} s`,
      });
    }
    const { width, height } = item;
    if (width && height) {
      const r = width / height;
      if (video.minAspectRatio !== undefined && r < video.minAspectRatio - 0.01) {
        problems.push({
          field,
          message: `${name} is ${width} x ${height} (aspect ratio ${ratio(r)}); ${provider} takes at least ${ratio(video.minAspectRatio)} (width / height)`,
        });
      }
      if (video.maxAspectRatio !== undefined && r > video.maxAspectRatio + 0.01) {
        problems.push({
          field,
          message: `${name} is ${width} x ${height} (aspect ratio ${ratio(r)}); ${provider} takes at most ${ratio(video.maxAspectRatio)} (width / height)`,
        });
      }
      const long = Math.max(width, height);
      const short = Math.min(width, height);
      if (video.minShortSide !== undefined && short < video.minShortSide) {
        problems.push({
          field,
          message: `${name} is ${width} x ${height}; ${provider} takes videos at least ${video.minShortSide} px on their short side`,
        });
      }
      if (video.maxLongSide !== undefined && long > video.maxLongSide) {
        problems.push({
          field,
          message: `${name} is ${width} x ${height}; ${provider} takes videos at most ${video.maxLongSide} px on their long side`,
        });
      }
      if (!options.convertsVideo && video.maxShortSide !== undefined && short > video.maxShortSide) {
        problems.push({
          field,
          message: `${name} is ${width} x ${height}; ${provider} takes videos at most ${video.maxShortSide} px on their short side`,
        });
      }
      if (!options.convertsVideo && video.maxPixels !== undefined && width * height > video.maxPixels) {
        problems.push({
          field,
          message: `${name} is ${width} x ${height} (${count(width * height)} pixels per frame); ${provider} takes at most ${count(video.maxPixels)} pixels per frame`,
        });
      }
    }
    const fps = item.frameRate ?? null;
    if (fps !== null && video.minFrameRate !== undefined && fps < video.minFrameRate) {
      problems.push({
        field,
        message: `${name} has ${fps} frames per second; ${provider} takes at least ${video.minFrameRate}`,
      });
    }
    if (!options.convertsVideo && fps !== null && video.maxFrameRate !== undefined && fps > video.maxFrameRate + 0.01) {
      problems.push({
        field,
        message: `${name} has ${fps} frames per second; ${provider} takes at most ${video.maxFrameRate}`,
      });
    }
  }
  return problems;
}

/** Media whose alt text is longer than the network takes (counted in code points), one problem each. */
export function altTextProblems(network: string, media: readonly MediaDescriptor[], max: number): Problem[] {
  const problems: Problem[] = [];
  for (const item of media) {
    const length = [...(item.altText ?? '')].length;
    if (length > max) {
      problems.push({
        field: 'mediaIds',
        message: `The alt text of media ${item.id} has ${length} characters; ${network} allows ${max}`,
      });
    }
  }
  return problems;
}
