import { asArray, asObject, asString } from './provider-json.util';
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

/** How long before an attempt began a post it made may say it was created (the network's clock). */
export const LOOKUP_SLACK_MS = 60_000;

/**
 * Among a network's recent items (as it lists them), the first carrying `content` as its text field and
 * created no earlier than LOOKUP_SLACK_MS before `createdAt` (an item whose time cannot be read is judged
 * by its text alone): how an adapter finds what an attempt that lost the network's answer published.
 */
export function recentWithText(
  items: unknown,
  content: string,
  createdAt: Date,
  fields: { text: string; time: string },
): (Record<string, unknown> & { id: string }) | null {
  const since = createdAt.getTime() - LOOKUP_SLACK_MS;
  const wanted = comparableText(content);
  for (const entry of asArray(items) ?? []) {
    const item = asObject(entry);
    const id = asString(item?.id);
    const at = Date.parse(asString(item?.[fields.time]) ?? '');
    if (!item || !id || (Number.isFinite(at) && at < since)) continue;
    if (comparableText(asString(item[fields.text]) ?? '') === wanted) return { ...item, id };
  }
  return null;
}
