import { createHash } from 'node:crypto';
import { loadSharp } from './sharp-loader';

/** The types an image can be converted to, and the variant name each is stored and signed under. */
export const VARIANT_NAMES: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
};
/** The types sharp reads among those the service accepts (videos are not converted). */
const CONVERTIBLE_SOURCES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The variant name of a type (`image/jpeg` -> `jpeg`), or null when the service cannot convert to it. */
export function variantName(mimeType: string): string | null {
  return VARIANT_NAMES[mimeType] ?? null;
}

/** The type of a variant name (`jpeg` -> `image/jpeg`), or null when it is none. */
export function variantMimeType(variant: string): string | null {
  return Object.entries(VARIANT_NAMES).find(([, name]) => name === variant)?.[0] ?? null;
}

export function canConvert(from: string, to: string): boolean {
  return CONVERTIBLE_SOURCES.has(from) && variantName(to) !== null;
}

export interface ConvertedImage {
  data: Buffer;
  width: number;
  height: number;
  sha256: string;
}

/** The image could not be decoded or encoded (corrupt, too many pixels, unsupported feature). */
export class ImageConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageConversionError';
  }
}

/**
 * Converts an image (bytes, or the path of a file) with sharp (libvips): applies the EXIF orientation
 * (the metadata is not kept), flattens transparency onto white for JPEG, takes the first frame of an
 * animation. Refuses an image of more than `maxPixels` before decoding it. Deterministic for one input
 * and one sharp version.
 */
export async function convertImage(
  input: Buffer | string,
  to: string,
  opts: { maxPixels: number },
): Promise<ConvertedImage> {
  const variant = variantName(to);
  if (!variant) throw new ImageConversionError(`Cannot convert to ${to}`);
  const sharp = await loadSharp();
  let image = sharp(input, { failOn: 'error', animated: false, limitInputPixels: opts.maxPixels }).rotate();
  switch (variant) {
    case 'jpeg':
      image = image.flatten({ background: '#ffffff' }).jpeg({ quality: 90, chromaSubsampling: '4:2:0' });
      break;
    case 'png':
      image = image.png();
      break;
    case 'webp':
      image = image.webp({ quality: 90 });
      break;
  }
  try {
    const { data, info } = await image.toBuffer({ resolveWithObject: true });
    return {
      data,
      width: info.width,
      height: info.height,
      sha256: createHash('sha256').update(data).digest('hex'),
    };
  } catch (err) {
    const reason = /pixel limit/i.test((err as Error).message)
      ? `it has more than the ${opts.maxPixels} pixels this server decodes (MEDIA_MAX_IMAGE_PIXELS)`
      : (err as Error).message;
    throw new ImageConversionError(`The image cannot be converted to ${to}: ${reason}`);
  }
}
