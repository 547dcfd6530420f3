import type { ChannelLimits } from '../social-provider.interface';

/**
 * A LinkedIn member or organization page: 3,000 characters of commentary; one image, or 2 to 20 as a
 * multi-image post; JPEG, PNG or GIF. LinkedIn documents a pixel limit (below) but no byte limit for
 * images; 5 MiB is the size integrators commonly report as accepted.
 */
export const LINKEDIN_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 3000,
  maxMedia: 20,
  maxImageBytes: 5 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif'],
  // A post cannot reply to a post (replies are comments, not posts): no threads.
  threads: false,
  firstComment: true,
});

/** Largest image LinkedIn's Images API accepts, in pixels (width x height). */
export const LINKEDIN_MAX_IMAGE_PIXELS = 36_152_320;

/** Roles on an organization page that may publish organic posts as the page. */
export const LINKEDIN_POSTING_ROLES: readonly string[] = ['ADMINISTRATOR', 'CONTENT_ADMINISTRATOR', 'CONTENT_ADMIN'];

/** Organization pages listed per authorization (the rest are left out). */
export const LINKEDIN_MAX_ORGANIZATIONS = 50;
