import { INSTAGRAM_MAX_HASHTAGS, INSTAGRAM_MAX_MENTIONS } from './instagram.limits';

/** Characters of a caption (code points, as Instagram counts its 2,200). */
export function captionLength(caption: string): number {
  return [...caption.normalize('NFC')].length;
}

/** Hashtags (#word) and @mentions in a caption. */
export function captionTags(caption: string): { hashtags: number; mentions: number } {
  const hashtags = caption.match(/(^|[^\p{L}\p{N}_&/])#[\p{L}\p{N}_]+/gu)?.length ?? 0;
  const mentions = caption.match(/(^|[^\p{L}\p{N}_.@])@[A-Za-z0-9_.]+/gu)?.length ?? 0;
  return { hashtags, mentions };
}

/** Problems of a caption beyond its length: too many hashtags or mentions. */
export function captionProblems(caption: string): string[] {
  const { hashtags, mentions } = captionTags(caption);
  const problems: string[] = [];
  if (hashtags > INSTAGRAM_MAX_HASHTAGS) {
    problems.push(`The caption has ${hashtags} hashtags; Instagram allows ${INSTAGRAM_MAX_HASHTAGS}`);
  }
  if (mentions > INSTAGRAM_MAX_MENTIONS) {
    problems.push(`The caption mentions ${mentions} accounts; Instagram allows ${INSTAGRAM_MAX_MENTIONS}`);
  }
  return problems;
}
