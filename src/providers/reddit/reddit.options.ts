import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';
import { REDDIT_MAX_FLAIR_TEXT, REDDIT_MAX_TITLE } from './reddit.limits';

/** A Reddit target's own settings (`targets[i].options`), as the adapter reads them. */
export interface RedditOptions {
  /** The subreddit to submit to, without `r/`. */
  subreddit: string;
  /** The submission's title (Reddit: 1 to 300 characters). */
  title: string;
  /** A link post: the URL submitted (the post's text goes with it as its body). */
  url?: string | null;
  /** A flair template of the subreddit (`flair_id`). */
  flairId?: string | null;
  /** The flair's text, where the template lets the poster edit it (`flair_text`). */
  flairText?: string | null;
  /** Marks the submission NSFW. */
  nsfw?: boolean | null;
  /** Marks the submission as a spoiler. */
  spoiler?: boolean | null;
  /** Whether replies reach the account's inbox (default true). */
  sendReplies?: boolean | null;
}

/**
 * The JSON Schema of Reddit's options (`optionsSchema` in `GET /providers`), closed. `subreddit` and
 * `title` are required: every submission goes to a subreddit and has a title. The subreddit's own rules
 * (post types, flair required, title length) are read from Reddit before submitting (docs/adr/0054).
 */
export const REDDIT_OPTIONS_SCHEMA: JSONSchemaType<RedditOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['subreddit', 'title'],
  properties: {
    subreddit: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9_]{1,20}$',
      description: 'Subreddit to submit to, without r/ (e.g. test)',
    },
    title: {
      type: 'string',
      minLength: 1,
      maxLength: REDDIT_MAX_TITLE,
      description: `Title of the submission (at most ${REDDIT_MAX_TITLE} characters; the subreddit may ask for fewer)`,
    },
    url: {
      type: 'string',
      maxLength: 2048,
      pattern: '^https?://[^\\s]+$',
      nullable: true,
      description: 'Makes a link post to this URL (http or https); the post text goes with it as its body',
    },
    flairId: {
      type: 'string',
      pattern: '^[A-Za-z0-9-]{1,36}$',
      nullable: true,
      description: "Flair template id of the subreddit (required where the subreddit's rules ask for a flair)",
    },
    flairText: {
      type: 'string',
      minLength: 1,
      maxLength: REDDIT_MAX_FLAIR_TEXT,
      nullable: true,
      description: `Flair text, where the template lets the poster edit it (at most ${REDDIT_MAX_FLAIR_TEXT} characters)`,
    },
    nsfw: { type: 'boolean', nullable: true, description: 'Marks the submission NSFW (over 18)' },
    spoiler: { type: 'boolean', nullable: true, description: 'Marks the submission as a spoiler' },
    sendReplies: {
      type: 'boolean',
      nullable: true,
      description: "Whether replies reach the account's inbox (default true)",
    },
  },
};
