import type { Problem } from '../social-provider.interface';
import { YOUTUBE_MAX_TAGS_CHARACTERS, YOUTUBE_MAX_TITLE } from './youtube.limits';

export const YOUTUBE_PRIVACY = ['public', 'unlisted', 'private'] as const;
export type YouTubePrivacy = (typeof YOUTUBE_PRIVACY)[number];

/** A YouTube target's own settings (`targets[i].options`), as the adapter reads them. */
export interface YouTubeOptions {
  title: string | null;
  privacy: YouTubePrivacy;
  madeForKids: boolean;
  notifySubscribers: boolean;
  publishAt: string | null;
  tags: string[];
  categoryId: string | null;
  short: boolean;
}

/**
 * The JSON Schema of YouTube's options, published as `optionsSchema` in `GET /providers`. Closed:
 * unknown fields are refused. `madeForKids` is required: YouTube's rules (COPPA) make every uploader
 * declare it, and the service never guesses it.
 */
export const YOUTUBE_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['madeForKids'],
  properties: {
    title: {
      type: 'string',
      minLength: 1,
      maxLength: YOUTUBE_MAX_TITLE,
      pattern: '^[^<>]*$',
      description: 'Video title (at most 100 characters, no < or >); default: the first line of the text',
    },
    privacy: {
      type: 'string',
      enum: [...YOUTUBE_PRIVACY],
      default: 'public',
      description: 'Who can watch it; with publishAt the video stays private until then',
    },
    madeForKids: {
      type: 'boolean',
      description: "Whether the video is made for children (YouTube's audience setting, required)",
    },
    notifySubscribers: {
      type: 'boolean',
      default: true,
      description: 'Whether subscribers are notified of the upload',
    },
    publishAt: {
      type: 'string',
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?(Z|[+-][0-9]{2}:[0-9]{2})$',
      description: 'Scheduled publication on YouTube (RFC 3339): uploaded private, public at this time',
    },
    tags: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[^<>,]*$' },
      maxItems: 100,
      description: 'Keyword tags (500 characters in all)',
    },
    categoryId: {
      type: 'string',
      pattern: '^[0-9]{1,3}$',
      description: 'Video category id (e.g. "22" People & Blogs); default: the channel default',
    },
    short: {
      type: 'boolean',
      default: false,
      description: 'Published as a Short: the video must be vertical or square and at most 3 minutes',
    },
  },
} as const;

const field = (name: string) => `options.${name}`;

/** Characters the tags count for YouTube's 500: a tag with a space is counted with its quotes. */
export function tagsLength(tags: string[]): number {
  return tags.reduce((n, t) => n + [...t].length + (t.includes(' ') ? 2 : 0), 0) + Math.max(0, tags.length - 1);
}

/**
 * Reads and checks options beyond their schema (what the schema cannot say: tags' total length,
 * publishAt in the future and only with public or private). `now` for tests.
 */
export function readYouTubeOptions(
  raw: Record<string, unknown> | null | undefined,
  now: number = Date.now(),
): { options: YouTubeOptions | null; problems: Problem[] } {
  const o = raw ?? {};
  const problems: Problem[] = [];
  const known = Object.keys(YOUTUBE_OPTIONS_SCHEMA.properties);
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) problems.push({ field: field(key), message: 'is not a known YouTube option' });
  }
  if (typeof o.madeForKids !== 'boolean') {
    problems.push({
      field: field('madeForKids'),
      message: 'is required: YouTube has every uploader declare whether the video is made for kids (true or false)',
    });
  }
  const title = o.title;
  if (
    title !== undefined &&
    (typeof title !== 'string' || !title.trim() || [...title].length > YOUTUBE_MAX_TITLE || /[<>]/.test(title))
  ) {
    problems.push({ field: field('title'), message: `must be 1 to ${YOUTUBE_MAX_TITLE} characters without < or >` });
  }
  const privacy = o.privacy ?? 'public';
  if (!YOUTUBE_PRIVACY.includes(privacy as YouTubePrivacy)) {
    problems.push({ field: field('privacy'), message: `must be one of ${YOUTUBE_PRIVACY.join(', ')}` });
  }
  if (o.notifySubscribers !== undefined && typeof o.notifySubscribers !== 'boolean') {
    problems.push({ field: field('notifySubscribers'), message: 'must be a boolean' });
  }
  let publishAt: string | null = null;
  if (o.publishAt !== undefined) {
    const at = typeof o.publishAt === 'string' ? Date.parse(o.publishAt) : NaN;
    if (Number.isNaN(at)) problems.push({ field: field('publishAt'), message: 'must be an RFC 3339 date-time' });
    else if (at <= now) problems.push({ field: field('publishAt'), message: 'must be in the future' });
    else if (privacy === 'unlisted') {
      problems.push({
        field: field('publishAt'),
        message: 'YouTube schedules only public videos: use privacy public or private',
      });
    } else publishAt = new Date(at).toISOString();
  }
  const tags = o.tags ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string' || !t.trim() || /[<>,]/.test(t))) {
    problems.push({ field: field('tags'), message: 'must be non-empty texts without <, > or commas' });
  } else if (tagsLength(tags as string[]) > YOUTUBE_MAX_TAGS_CHARACTERS) {
    problems.push({
      field: field('tags'),
      message: `count ${tagsLength(tags as string[])} characters; YouTube allows ${YOUTUBE_MAX_TAGS_CHARACTERS} in all`,
    });
  }
  if (o.categoryId !== undefined && (typeof o.categoryId !== 'string' || !/^[0-9]{1,3}$/.test(o.categoryId))) {
    problems.push({ field: field('categoryId'), message: 'must be a YouTube video category id (digits)' });
  }
  if (o.short !== undefined && typeof o.short !== 'boolean') {
    problems.push({ field: field('short'), message: 'must be a boolean' });
  }
  if (problems.length) return { options: null, problems };
  return {
    options: {
      title: typeof title === 'string' ? title.trim() : null,
      privacy: privacy as YouTubePrivacy,
      madeForKids: o.madeForKids as boolean,
      notifySubscribers: (o.notifySubscribers as boolean | undefined) ?? true,
      publishAt,
      tags: tags as string[],
      categoryId: (o.categoryId as string | undefined) ?? null,
      short: o.short === true,
    },
    problems,
  };
}

/** The title sent when none is given: the text's first line, without angle brackets, cut at 100 characters. */
export function defaultTitle(content: string): string {
  const line = content.split('\n').find((l) => l.trim()) ?? '';
  const clean = line.replace(/[<>]/g, '').trim();
  const chars = [...clean];
  if (chars.length === 0) return 'Video';
  return chars.length > YOUTUBE_MAX_TITLE ? `${chars.slice(0, YOUTUBE_MAX_TITLE - 1).join('')}…` : clean;
}
