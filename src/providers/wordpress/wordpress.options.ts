import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';

/** A WordPress target's own settings (`targets[i].options`), as the adapter reads them. */
export interface WordpressOptions {
  /** The post's title (`title`); without it the post has none (WordPress shows "(no title)"). */
  title?: string | null;
  /** `publish` (default) or `draft` (saved for review in the site's admin). */
  status?: 'publish' | 'draft' | null;
  /** Category ids of the site (`categories`); WordPress files it under "Uncategorized" without. */
  categories?: number[] | null;
  /** Tag names: each is looked up among the site's tags and created when missing (creating needs Editor). */
  tags?: string[] | null;
  /** A short summary (`excerpt`). */
  excerpt?: string | null;
}

/** The JSON Schema of WordPress's options (`optionsSchema` in `GET /providers`), closed; none required. */
export const WORDPRESS_OPTIONS_SCHEMA: JSONSchemaType<WordpressOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    title: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      nullable: true,
      description: 'Title of the post; without it the post has none',
    },
    status: {
      type: 'string',
      enum: ['publish', 'draft'],
      nullable: true,
      description: 'publish (default): live at once; draft: saved in the site for review',
    },
    categories: {
      type: 'array',
      items: { type: 'integer', minimum: 1 },
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      nullable: true,
      description: 'Ids of existing categories of the site (GET /wp-json/wp/v2/categories lists them)',
    },
    tags: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 200 },
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      nullable: true,
      description:
        'Tag names; each is matched to a tag of the site by name, or created (creating a tag needs the Editor role)',
    },
    excerpt: {
      type: 'string',
      minLength: 1,
      maxLength: 1000,
      nullable: true,
      description: 'A short summary shown by themes in lists and feeds',
    },
  },
};
