import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';

/** What a sandbox target may set (`targets[i].options`); its timeline shows both. */
export interface SandboxOptions {
  /** Who sees the post on the sandbox timeline; `public` when left out. */
  visibility?: 'public' | 'unlisted' | 'private' | null;
  /** A warning shown before the post's text (like Mastodon's spoiler text). */
  contentWarning?: string | null;
}

export const SANDBOX_VISIBILITIES = ['public', 'unlisted', 'private'] as const;

/** The sandbox's options schema: small, but real, so options are exercised end to end. */
export const SANDBOX_OPTIONS_SCHEMA: JSONSchemaType<SandboxOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    visibility: {
      type: 'string',
      enum: [...SANDBOX_VISIBILITIES],
      nullable: true,
      description: 'Who sees the post on the sandbox timeline; public when left out.',
    },
    contentWarning: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      nullable: true,
      description: "A warning shown before the post's text (like Mastodon's spoiler text).",
    },
  },
};
