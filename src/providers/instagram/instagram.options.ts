import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';

/** What an Instagram target may set (`targets[i].options`); only Reels (a video alone) read them. */
export interface InstagramOptions {
  /**
   * A Reel is also shown in the account's feed (`share_to_feed`); true when left out, as Instagram
   * does.
   */
  shareToFeed?: boolean | null;
  /**
   * The post's media are a video then an image: the video is published as a Reel with the image as
   * its cover (`cover_url`), not as a carousel. Without it a Reel's cover is the poster frame the
   * service keeps of the video.
   */
  coverImage?: boolean | null;
}

export const INSTAGRAM_OPTIONS_SCHEMA: JSONSchemaType<InstagramOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    shareToFeed: {
      type: 'boolean',
      nullable: true,
      description: "Reels: also show the Reel in the account's feed (share_to_feed); true when left out.",
    },
    coverImage: {
      type: 'boolean',
      nullable: true,
      description:
        "Media of a video then an image: publish the video as a Reel with the image as its cover, not a carousel. Without it a Reel's cover is the video's poster frame.",
    },
  },
};
