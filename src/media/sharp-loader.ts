import type SharpModule from 'sharp';

let loaded: Promise<typeof SharpModule> | undefined;

/**
 * sharp, loaded on first use: libvips costs ~60 MiB of memory in every process, and most never decode
 * an image. Its cache keeps no files open (the checks decode temporary copies that are deleted after).
 */
export function loadSharp(): Promise<typeof SharpModule> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache({ files: 0 });
    return sharp;
  });
  return loaded;
}
