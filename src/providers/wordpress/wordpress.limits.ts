import type { ChannelLimits } from '../social-provider.interface';
import { VIDEO_MIME_TYPES } from '../video-limits';

/**
 * WordPress core: no length limit on a post (`post_content` is LONGTEXT); a comment is at most 65,525
 * characters (`wp_get_comment_fields_max_lengths`), and the first comment is checked against the same
 * limit, so that is the limit. Uploads are bounded by the site's PHP `upload_max_filesize`, often 2 to
 * 128 MB: 20 MiB stands for a typical host; a site that takes less refuses the upload (MEDIA_REJECTED).
 * The first image is the featured image; the others and videos go into the content as blocks.
 */
export const WORDPRESS_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 65_525,
  maxMedia: 10,
  maxImageBytes: 20 * 1024 * 1024,
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', ...VIDEO_MIME_TYPES],
  // A blog post has no replies of its own kind: no threads; the first comment is a comment.
  threads: false,
  firstComment: true,
  video: Object.freeze({
    maxBytes: 100 * 1024 * 1024,
    minDurationSeconds: 0,
    maxDurationSeconds: 24 * 60 * 60,
    mimeTypes: [...VIDEO_MIME_TYPES],
    maxPerPost: 10,
  }),
});
