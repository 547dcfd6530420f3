/** An inclusive byte range of a file of `size` bytes. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads a `Range` request header (RFC 9110, section 14) for a file of `size` bytes. One range of
 * `bytes` is served: `a-b`, `a-` and the suffix `-n`; an end past the file is cut to its last byte.
 * `null`: serve the whole file (no header, another unit, several ranges, or a header that does not
 * parse, which the RFC says to ignore). `'unsatisfiable'`: answer 416 (the range starts past the end,
 * a suffix of 0 bytes, or any range of an empty file).
 */
export function parseRange(header: string | string[] | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (typeof header !== 'string') return null;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1].length > 15 || match[2].length > 15) return null; // beyond any file: not a range we can read
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === '' ? Number.POSITIVE_INFINITY : Number(match[2]);
  if (last < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}
