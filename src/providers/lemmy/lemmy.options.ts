import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';

/** A Lemmy target's own settings (`targets[i].options`), as the adapter reads them. */
export interface LemmyOptions {
  /** The community: its name on the instance (`technology`) or `name@instance` for a remote one. */
  community: string;
  /** The post's title (Lemmy's `name`), at most 200 characters. */
  title: string;
  /** A link the post points to (Lemmy's `url`); an attached image then goes into the body. */
  url?: string | null;
  /** Marks the post NSFW. */
  nsfw?: boolean | null;
}

/** The JSON Schema of Lemmy's options (`optionsSchema` in `GET /providers`): `community` and `title` required. */
export const LEMMY_OPTIONS_SCHEMA: JSONSchemaType<LemmyOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['community', 'title'],
  properties: {
    community: {
      type: 'string',
      pattern: '^[a-z0-9_]{3,255}(@[A-Za-z0-9.-]+(:[0-9]+)?)?$',
      description: 'Community to post to: its name (technology) or name@instance for a community of another instance',
    },
    title: { type: 'string', minLength: 3, maxLength: 200, description: 'Title of the post (3 to 200 characters)' },
    url: {
      type: 'string',
      pattern: '^https?://[^\\s]+$',
      maxLength: 2000,
      nullable: true,
      description: 'A link the post points to; an attached image then goes into the body',
    },
    nsfw: { type: 'boolean', nullable: true, description: 'Mark the post NSFW' },
  },
};
