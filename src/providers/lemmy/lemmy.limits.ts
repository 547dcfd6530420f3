import type { ChannelLimits } from '../social-provider.interface';

/**
 * Lemmy (0.19 and 1.x): a post body and a comment are at most 10,000 characters (`MAX_BODY_LENGTH`
 * of lemmy_utils), a title 200. A post carries one link or one image (`url`): one image, uploaded to
 * the instance's pict-rs (its default limit is 20 MB; admins lower it). Video uploads depend on the
 * instance's pict-rs settings, so the service sends none.
 */
export const LEMMY_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 10_000,
  maxMedia: 1,
  maxImageBytes: 20 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
  threads: false,
  firstComment: true,
  video: null,
});
