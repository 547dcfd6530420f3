import type { ChannelLimits } from '../social-provider.interface';

/**
 * A Business Profile location: a local post's `summary` holds up to 1,500 characters, with at most
 * one photo, JPEG or PNG, which Google downloads from its `sourceUrl`. Google's photo guidelines ask
 * for 10 KB to 5 MB and at least 250 x 250 pixels; smaller photos are refused by Google
 * (MEDIA_REJECTED), not here. The API posts no video to local posts.
 */
export const GOOGLE_BUSINESS_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 1500,
  maxMedia: 1,
  maxImageBytes: 5 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png'],
  // A local post answers nothing: no threads.
  threads: false,
  // No first comment through this service (yet): refused at validation.
  firstComment: false,
});

/** Locations listed per authorization for the caller to choose from (the rest are left out). */
export const GOOGLE_BUSINESS_MAX_LOCATIONS = 100;

/** Seconds to wait after a 429 without Retry-After: Google's Business Profile quotas are per minute. */
export const GOOGLE_BUSINESS_QUOTA_WINDOW_SECONDS = 60;
