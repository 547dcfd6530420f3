import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';
import { TUMBLR_MAX_TAGS, TUMBLR_MAX_TAG_LENGTH } from './tumblr.limits';

/** The states a new post may take through this service (Tumblr's `state`). */
export const TUMBLR_STATES = ['published', 'queue', 'draft'] as const;

/** A Tumblr target's own settings (`targets[i].options`), as the adapter reads them. */
export interface TumblrOptions {
  /** Tags of the post, without `#`. */
  tags?: string[] | null;
  /** `published` (default), `queue` (the end of the blog's queue) or `draft`. */
  state?: (typeof TUMBLR_STATES)[number] | null;
  /** A source attribution of the post's content. */
  sourceUrl?: string | null;
}

/** The JSON Schema of Tumblr's options (`optionsSchema` in `GET /providers`), closed; nothing required. */
export const TUMBLR_OPTIONS_SCHEMA: JSONSchemaType<TumblrOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tags: {
      type: 'array',
      maxItems: TUMBLR_MAX_TAGS,
      items: { type: 'string', minLength: 1, maxLength: TUMBLR_MAX_TAG_LENGTH, pattern: '^[^,#]+$' },
      nullable: true,
      description: `Tags of the post, without # and without commas (at most ${TUMBLR_MAX_TAGS}, each at most ${TUMBLR_MAX_TAG_LENGTH} characters)`,
    },
    state: {
      type: 'string',
      enum: [...TUMBLR_STATES],
      nullable: true,
      description: "published (default), queue (added at the end of the blog's queue) or draft",
    },
    sourceUrl: {
      type: 'string',
      maxLength: 2048,
      pattern: '^https?://[^\\s]+$',
      nullable: true,
      description: 'Source attribution of the post content (http or https URL)',
    },
  },
};
