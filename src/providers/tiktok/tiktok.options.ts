import type { Problem } from '../social-provider.interface';

export const TIKTOK_PRIVACY_LEVELS = [
  'PUBLIC_TO_EVERYONE',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'SELF_ONLY',
] as const;
export type TikTokPrivacyLevel = (typeof TIKTOK_PRIVACY_LEVELS)[number];

/** A TikTok target's own settings (`targets[i].options`), as the adapter reads them. */
export interface TikTokOptions {
  privacyLevel: TikTokPrivacyLevel;
  disableComment: boolean;
  disableDuet: boolean;
  disableStitch: boolean;
  brandContent: boolean;
  brandOrganic: boolean;
  isAigc: boolean;
  videoCoverTimestampMs: number | null;
  /** Photo posts: a title beside the description (the post's text). */
  title: string | null;
  /** Photo posts: which photo (0-based) is the cover. */
  photoCoverIndex: number;
  /** Photo posts: TikTok adds music to the slideshow. */
  autoAddMusic: boolean;
}

/** What a post publishes on TikTok, as far as options care: a video, photos, or not known yet. */
export type TikTokPostKind = 'video' | 'photo' | null;

/** A photo post's title: at most 90 characters. */
export const TIKTOK_MAX_PHOTO_TITLE = 90;

/** What creator_info/query says the creator may choose now. */
export interface TikTokCreatorInfo {
  username: string | null;
  nickname: string | null;
  avatarUrl: string | null;
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number | null;
}

/**
 * The JSON Schema of TikTok's options (`optionsSchema` in `GET /providers`), closed. `privacyLevel`
 * is required and never chosen by the service: TikTok's rules make the creator pick it among the
 * levels creator_info offers them.
 */
export const TIKTOK_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['privacyLevel'],
  properties: {
    privacyLevel: {
      type: 'string',
      enum: [...TIKTOK_PRIVACY_LEVELS],
      description:
        "Who can watch it; must be one of the creator's privacy_level_options (an unaudited app: SELF_ONLY only)",
    },
    disableComment: {
      type: 'boolean',
      default: false,
      description: 'Turn comments off (forced on when the creator disabled them)',
    },
    disableDuet: {
      type: 'boolean',
      default: false,
      description: 'Turn Duets off (forced on when the creator disabled them)',
    },
    disableStitch: {
      type: 'boolean',
      default: false,
      description: 'Turn Stitches off (forced on when the creator disabled them)',
    },
    brandContent: { type: 'boolean', default: false, description: 'Paid partnership promoting a third-party brand' },
    brandOrganic: { type: 'boolean', default: false, description: "Promotes the creator's own business" },
    isAigc: { type: 'boolean', default: false, description: 'The video is AI-generated content' },
    videoCoverTimestampMs: {
      type: 'integer',
      minimum: 0,
      description: 'Video posts: frame of the video used as its cover, in milliseconds',
    },
    title: {
      type: 'string',
      maxLength: TIKTOK_MAX_PHOTO_TITLE,
      description: "Photo posts: a title of at most 90 characters (the post's text is the description)",
    },
    photoCoverIndex: {
      type: 'integer',
      minimum: 0,
      default: 0,
      description: 'Photo posts: the photo used as the cover, counted from 0 in the order of the media',
    },
    autoAddMusic: {
      type: 'boolean',
      default: false,
      description: 'Photo posts: TikTok adds music to the slideshow',
    },
  },
} as const;

const field = (name: string) => `options.${name}`;
const BOOLEANS = [
  'disableComment',
  'disableDuet',
  'disableStitch',
  'brandContent',
  'brandOrganic',
  'isAigc',
  'autoAddMusic',
] as const;
/** Options that apply to one kind of post only. */
const PHOTO_ONLY = ['title', 'photoCoverIndex', 'autoAddMusic'] as const;
const VIDEO_ONLY = ['videoCoverTimestampMs', 'disableDuet', 'disableStitch'] as const;

/**
 * Reads options, checked against the creator's allowed privacy levels when known (`allowed`): a post
 * without a privacy level, or with one the creator cannot use, is refused naming the allowed values.
 * With the post's `kind` known, options of the other kind are refused and the cover index is checked
 * against the number of photos.
 */
export function readTikTokOptions(
  raw: Record<string, unknown> | null | undefined,
  allowed: readonly string[] | null,
  kind: TikTokPostKind = null,
  photoCount = 0,
): { options: TikTokOptions | null; problems: Problem[] } {
  const o = raw ?? {};
  const problems: Problem[] = [];
  const known = Object.keys(TIKTOK_OPTIONS_SCHEMA.properties);
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) problems.push({ field: field(key), message: 'is not a known TikTok option' });
  }
  const levels = allowed && allowed.length ? allowed : TIKTOK_PRIVACY_LEVELS;
  const privacy = o.privacyLevel;
  if (privacy === undefined) {
    problems.push({
      field: field('privacyLevel'),
      message: `is required (TikTok has the creator choose who can watch, never the app): one of ${levels.join(', ')}`,
    });
  } else if (typeof privacy !== 'string' || !levels.includes(privacy)) {
    problems.push({
      field: field('privacyLevel'),
      message: `must be one of ${levels.join(', ')} for this creator (got ${JSON.stringify(privacy)})`,
    });
  }
  for (const name of BOOLEANS) {
    if (o[name] !== undefined && typeof o[name] !== 'boolean')
      problems.push({ field: field(name), message: 'must be a boolean' });
  }
  const cover = o.videoCoverTimestampMs;
  if (cover !== undefined && (typeof cover !== 'number' || !Number.isInteger(cover) || cover < 0)) {
    problems.push({ field: field('videoCoverTimestampMs'), message: 'must be a whole number of milliseconds' });
  }
  const title = o.title;
  if (title !== undefined && (typeof title !== 'string' || [...title].length > TIKTOK_MAX_PHOTO_TITLE)) {
    problems.push({ field: field('title'), message: `must be text of at most ${TIKTOK_MAX_PHOTO_TITLE} characters` });
  }
  const coverIndex = o.photoCoverIndex;
  if (coverIndex !== undefined && (typeof coverIndex !== 'number' || !Number.isInteger(coverIndex) || coverIndex < 0)) {
    problems.push({ field: field('photoCoverIndex'), message: 'must be a whole number from 0' });
  } else if (kind === 'photo' && typeof coverIndex === 'number' && coverIndex >= photoCount) {
    problems.push({
      field: field('photoCoverIndex'),
      message: `must name one of the post's ${photoCount} photo${photoCount === 1 ? '' : 's'} (0 to ${photoCount - 1})`,
    });
  }
  if (kind === 'video') {
    for (const name of PHOTO_ONLY) {
      if (o[name] !== undefined) problems.push({ field: field(name), message: 'applies to TikTok photo posts only' });
    }
  } else if (kind === 'photo') {
    for (const name of VIDEO_ONLY) {
      if (o[name] !== undefined) problems.push({ field: field(name), message: 'applies to TikTok video posts only' });
    }
  }
  if (o.brandContent === true && privacy === 'SELF_ONLY') {
    problems.push({
      field: field('brandContent'),
      message: 'TikTok does not allow branded content to be private (SELF_ONLY)',
    });
  }
  if (problems.length) return { options: null, problems };
  return {
    options: {
      privacyLevel: privacy as TikTokPrivacyLevel,
      disableComment: o.disableComment === true,
      disableDuet: o.disableDuet === true,
      disableStitch: o.disableStitch === true,
      brandContent: o.brandContent === true,
      brandOrganic: o.brandOrganic === true,
      isAigc: o.isAigc === true,
      videoCoverTimestampMs: typeof cover === 'number' ? cover : null,
      title: typeof title === 'string' && title !== '' ? title : null,
      photoCoverIndex: typeof coverIndex === 'number' ? coverIndex : 0,
      autoAddMusic: o.autoAddMusic === true,
    },
    problems,
  };
}
