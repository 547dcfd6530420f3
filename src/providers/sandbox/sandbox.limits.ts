import type { ChannelLimits } from '../social-provider.interface';

/** The sandbox's limits when the credentials do not set them; images only, like most networks. */
export const SANDBOX_DEFAULT_LIMITS: ChannelLimits = Object.freeze({
  maxCharacters: 500,
  maxMedia: 4,
  maxImageBytes: 16 * 1024 * 1024,
  supportedMimeTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
  threads: true,
  firstComment: true,
});

export const SANDBOX_MAX_CHARACTERS = 100_000;
export const SANDBOX_MAX_MEDIA = 20;

/** The channel's limits: the credentials' own `maxCharacters` / `maxMedia` / `threads` / `firstComment`, else the defaults. */
export function sandboxLimits(
  maxCharacters?: number,
  maxMedia?: number,
  threads?: boolean,
  firstComment?: boolean,
): ChannelLimits {
  return {
    ...SANDBOX_DEFAULT_LIMITS,
    supportedMimeTypes: [...SANDBOX_DEFAULT_LIMITS.supportedMimeTypes],
    maxCharacters: maxCharacters ?? SANDBOX_DEFAULT_LIMITS.maxCharacters,
    maxMedia: maxMedia ?? SANDBOX_DEFAULT_LIMITS.maxMedia,
    threads: threads ?? SANDBOX_DEFAULT_LIMITS.threads,
    firstComment: firstComment ?? SANDBOX_DEFAULT_LIMITS.firstComment,
  };
}
