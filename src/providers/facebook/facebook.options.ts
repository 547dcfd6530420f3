import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';

export const FACEBOOK_VIDEO_FORMATS = ['reel', 'video'] as const;

/** What a Facebook target may set (`targets[i].options`). */
export interface FacebookOptions {
  /**
   * How a video is published: `reel` (the Reels publishing flow) or `video` (a Page video). Left out:
   * a Reel when the video fits Facebook's Reel specifications (vertical 9:16, 3 to 90 s, at least
   * 540 x 960, 24 to 60 fps), otherwise a Page video (docs/adr/0040).
   */
  videoFormat?: (typeof FACEBOOK_VIDEO_FORMATS)[number] | null;
}

export const FACEBOOK_OPTIONS_SCHEMA: JSONSchemaType<FacebookOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    videoFormat: {
      type: 'string',
      enum: [...FACEBOOK_VIDEO_FORMATS],
      nullable: true,
      description:
        'How a video is published: reel or video (a Page video). Left out: a Reel when the video fits the Reel specifications (9:16, 3 to 90 s, at least 540 x 960, 24 to 60 fps), else a Page video.',
    },
  },
};
