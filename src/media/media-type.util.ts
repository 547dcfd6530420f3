/** Media type detection from magic bytes; the declared type of an upload is never trusted on its own. */
import { SUPPORTED_MEDIA_TYPES } from '../config/media.config';

export { SUPPORTED_MEDIA_TYPES };

export type SupportedMediaType = (typeof SUPPORTED_MEDIA_TYPES)[number];

/** How many leading bytes `sniffMimeType` looks at. */
export const MIME_SNIFF_BYTES = 64;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const EBML_MAGIC = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);
/** EBML DocType element id followed by the DocType string. */
const EBML_DOCTYPE_ID = Buffer.from([0x42, 0x82]);

/** ISO base media file format brands that browsers and social networks treat as MP4. */
const MP4_BRANDS = new Set([
  'isom',
  'iso2',
  'iso3',
  'iso4',
  'iso5',
  'iso6',
  'iso7',
  'iso8',
  'iso9',
  'mp41',
  'mp42',
  'mp71',
  'avc1',
  'hvc1',
  'hev1',
  'av01',
  'M4V ',
  'M4VH',
  'M4VP',
  'dash',
  'mmp4',
  'MSNV',
  'NDAS',
  'f4v ',
  'XAVC',
]);
const QUICKTIME_BRAND = 'qt  ';

/** Declared types that mean the same as a canonical sniffed type. */
const MIME_ALIASES: Readonly<Record<string, SupportedMediaType>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
};

function startsWith(head: Buffer, magic: Buffer | string, offset = 0): boolean {
  const bytes = typeof magic === 'string' ? Buffer.from(magic, 'latin1') : magic;
  return head.length >= offset + bytes.length && head.subarray(offset, offset + bytes.length).equals(bytes);
}

function sniffIsoBmff(head: Buffer): SupportedMediaType | null {
  if (!startsWith(head, 'ftyp', 4) || head.length < 12) return null;
  const boxSize = head.readUInt32BE(0);
  const major = head.toString('latin1', 8, 12);
  if (major === QUICKTIME_BRAND) return 'video/quicktime';
  if (MP4_BRANDS.has(major)) return 'video/mp4';
  // Unknown major brand: decide from the compatible brands (after the 4-byte minor version).
  const end = Math.min(head.length, boxSize >= 16 ? boxSize : head.length);
  let isQuickTime = false;
  for (let offset = 16; offset + 4 <= end; offset += 4) {
    const brand = head.toString('latin1', offset, offset + 4);
    if (MP4_BRANDS.has(brand)) return 'video/mp4';
    if (brand === QUICKTIME_BRAND) isQuickTime = true;
  }
  return isQuickTime ? 'video/quicktime' : null;
}

/** WebM is a Matroska profile: accept EBML unless the header says it is plain Matroska (or anything else). */
function sniffEbml(head: Buffer): SupportedMediaType | null {
  if (!startsWith(head, EBML_MAGIC)) return null;
  const at = head.indexOf(EBML_DOCTYPE_ID, 4);
  if (at < 0 || at + 3 > head.length) return 'video/webm';
  const sizeByte = head[at + 2];
  // One-byte EBML size (0x80 | length) is what every muxer writes for DocType.
  if ((sizeByte & 0x80) === 0) return 'video/webm';
  const length = sizeByte & 0x7f;
  if (at + 3 + length > head.length) return 'video/webm';
  return head.toString('latin1', at + 3, at + 3 + length) === 'webm' ? 'video/webm' : null;
}

/** Detects one of `SUPPORTED_MEDIA_TYPES` from the first bytes of a file (64 are enough), or null. */
export function sniffMimeType(head: Buffer): SupportedMediaType | null {
  if (startsWith(head, PNG_SIGNATURE)) return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (startsWith(head, 'GIF87a') || startsWith(head, 'GIF89a')) return 'image/gif';
  if (startsWith(head, 'RIFF') && startsWith(head, 'WEBP', 8)) return 'image/webp';
  return sniffIsoBmff(head) ?? sniffEbml(head);
}

/** Lower-cases a MIME type, drops parameters (`; codecs=...`) and resolves known aliases. */
export function normalizeMimeType(mimeType: string): string {
  const bare = mimeType.split(';', 1)[0].trim().toLowerCase();
  return MIME_ALIASES[bare] ?? bare;
}

/** True when the client-declared type names the same format as the sniffed one (null never matches). */
export function mimeMatches(declared: string, sniffed: string | null): boolean {
  if (sniffed === null) return false;
  return normalizeMimeType(declared) === normalizeMimeType(sniffed);
}
