import type { ChannelLimits } from './social-provider.interface';

/** A channel's own copy of a network's limits (the MIME type list is not shared with the constant). */
export function copyLimits(limits: ChannelLimits): ChannelLimits {
  const video = limits.video ? { ...limits.video, mimeTypes: [...limits.video.mimeTypes] } : limits.video;
  return { ...limits, supportedMimeTypes: [...limits.supportedMimeTypes], ...(video === undefined ? {} : { video }) };
}

/** Text as networks echo it back, for finding a post after a lost answer: NFC, spacing folded. */
export function comparableText(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}
