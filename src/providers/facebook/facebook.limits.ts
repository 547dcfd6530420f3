import type { ChannelLimits } from '../social-provider.interface';

/**
 * A Facebook Page: posts of up to 63,206 characters, with a link, one photo or up to 10. Facebook
 * downloads each photo from our signed public URL (JPEG, PNG or GIF of up to 10 MB).
 */
export const FACEBOOK_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 63_206,
  maxMedia: 10,
  maxImageBytes: 10 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif'],
  // Replies are comments, not Page posts: no threads.
  threads: false,
  firstComment: true,
});

/** The Page task that allows publishing as the Page. */
export const FACEBOOK_POSTING_TASK = 'CREATE_CONTENT';

/** Pages listed per authorization (the rest are left out). */
export const FACEBOOK_MAX_PAGES = 100;
