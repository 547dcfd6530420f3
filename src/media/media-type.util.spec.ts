import { makePng } from '../../test/factories/png.factory';
import { SUPPORTED_MEDIA_TYPES, mimeMatches, normalizeMimeType, sniffMimeType } from './media-type.util';

function ftyp(major: string, compatible: string[] = []): Buffer {
  const body = Buffer.concat([
    Buffer.from(major, 'latin1'),
    Buffer.alloc(4), // minor version
    ...compatible.map((brand) => Buffer.from(brand, 'latin1')),
  ]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(8 + body.length);
  return Buffer.concat([size, Buffer.from('ftyp'), body, Buffer.from([0, 0, 0, 8]), Buffer.from('free')]);
}

function ebml(docType: string): Buffer {
  return Buffer.concat([
    Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01]),
    Buffer.from([0x42, 0x82, 0x80 | docType.length]),
    Buffer.from(docType, 'latin1'),
    Buffer.from([0x42, 0x87, 0x81, 0x04]),
  ]);
}

describe('sniffMimeType', () => {
  it.each<[string, Buffer]>([
    ['image/png', makePng(2, 2).subarray(0, 64)],
    ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46])],
    ['image/gif', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')],
    ['image/gif', Buffer.from('GIF87a\x01\x00\x01\x00', 'latin1')],
    ['image/webp', Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1')],
    ['video/mp4', ftyp('isom', ['isom', 'iso2', 'avc1', 'mp41'])],
    ['video/mp4', ftyp('mp42')],
    ['video/mp4', ftyp('M4V ')],
    ['video/mp4', ftyp('dash', ['iso6'])],
    ['video/mp4', ftyp('zzzz', ['zzzz', 'mp41'])],
    ['video/quicktime', ftyp('qt  ', ['qt  '])],
    ['video/webm', ebml('webm')],
    ['video/webm', Buffer.from([0x1a, 0x45, 0xdf, 0xa3])],
  ])('detects %s', (expected, head) => {
    expect(sniffMimeType(head)).toBe(expected);
  });

  it.each<[string, Buffer]>([
    ['empty', Buffer.alloc(0)],
    ['text', Buffer.from('hello world, this is not media')],
    ['truncated PNG signature', makePng(1, 1).subarray(0, 5)],
    ['RIFF that is not WebP', Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1')],
    ['ftyp with unknown brands', ftyp('heic', ['mif1', 'heic'])],
    ['Matroska (not WebM)', ebml('matroska')],
    ['PDF', Buffer.from('%PDF-1.7\n')],
  ])('returns null for %s', (_name, head) => {
    expect(sniffMimeType(head)).toBeNull();
  });

  it('only needs the first 64 bytes', () => {
    const png = makePng(300, 300);
    expect(sniffMimeType(png.subarray(0, 64))).toBe('image/png');
  });

  it('exports exactly the seven supported types', () => {
    expect([...SUPPORTED_MEDIA_TYPES].sort()).toEqual(
      ['image/gif', 'image/jpeg', 'image/png', 'image/webp', 'video/mp4', 'video/quicktime', 'video/webm'].sort(),
    );
  });
});

describe('mimeMatches', () => {
  it('matches identical types, ignoring case and parameters', () => {
    expect(mimeMatches('image/png', 'image/png')).toBe(true);
    expect(mimeMatches('Video/MP4; codecs="avc1.42E01E"', 'video/mp4')).toBe(true);
  });

  it('treats image/jpg as image/jpeg', () => {
    expect(mimeMatches('image/jpg', 'image/jpeg')).toBe(true);
    expect(normalizeMimeType('image/jpg')).toBe('image/jpeg');
  });

  it('rejects different types and an unknown sniff', () => {
    expect(mimeMatches('image/png', 'image/jpeg')).toBe(false);
    expect(mimeMatches('video/mp4', 'video/quicktime')).toBe(false);
    expect(mimeMatches('image/png', null)).toBe(false);
  });
});
