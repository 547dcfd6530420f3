import type { ChannelLimits, MediaDescriptor, Problem } from './social-provider.interface';

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${bytes} bytes`;
}

/** Problems shared by every provider: empty post, media count, media type and size. */
export function commonDraftProblems(
  provider: string,
  content: string,
  media: MediaDescriptor[],
  limits: ChannelLimits,
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
  for (const item of media) {
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
