/** Rich-text facet detection for Bluesky posts (app.bsky.richtext.facet), with UTF-8 byte offsets. */

export interface ByteSlice {
  byteStart: number;
  byteEnd: number;
}

export type DetectedFacet =
  | ({ type: 'link'; uri: string } & ByteSlice)
  | ({ type: 'mention'; handle: string } & ByteSlice)
  | ({ type: 'tag'; tag: string } & ByteSlice);

export type FacetFeature =
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#mention'; did: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string };

export interface Facet {
  index: ByteSlice;
  features: FacetFeature[];
}

const LINK_RE = /(^|\s|\()(https?:\/\/[^\s]+)/gi;
const MENTION_RE = /(^|\s|\()(@)([a-zA-Z0-9.-]+)(\b)/g;
// Same character classes as the Bluesky app's tag detection (soft hyphen, word joiner, zero-width
// characters and the combining enclosing keycap end a tag).
const TAG_RE =
  // eslint-disable-next-line no-misleading-character-class -- separate code points, not a joined sequence
  /(^|\s)[#＃]((?!\ufe0f)[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*[^\d\s\p{P}\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]+[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*)?/gu;
const HANDLE_RE = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
const MAX_TAG_LENGTH = 64;

/** Maps UTF-16 indexes of `text` to UTF-8 byte offsets. */
class ByteOffsets {
  private lastIndex = 0;
  private lastBytes = 0;

  constructor(private readonly text: string) {}

  at(index: number): number {
    if (index < this.lastIndex) {
      this.lastIndex = 0;
      this.lastBytes = 0;
    }
    this.lastBytes += Buffer.byteLength(this.text.slice(this.lastIndex, index), 'utf8');
    this.lastIndex = index;
    return this.lastBytes;
  }
}

function trimLink(raw: string): string {
  let uri = raw.replace(/[.,;:!?'"]+$/, '');
  while (uri.endsWith(')') && (uri.match(/\(/g)?.length ?? 0) < (uri.match(/\)/g)?.length ?? 0)) {
    uri = uri.slice(0, -1).replace(/[.,;:!?'"]+$/, '');
  }
  return uri;
}

function isValidHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.includes('.');
  } catch {
    return false;
  }
}

/** True for a syntactically valid handle (a DNS name with at least two labels). */
export function isValidHandle(handle: string): boolean {
  return handle.length <= 253 && HANDLE_RE.test(handle);
}

interface CharSpan {
  start: number;
  end: number;
  facet: (bytes: ByteSlice) => DetectedFacet;
}

/**
 * Finds links (http/https), mentions (@handle.domain) and hashtags (#tag) the way the Bluesky app
 * does, returning non-overlapping facets sorted by position with UTF-8 byte offsets.
 */
export function detectFacets(text: string): DetectedFacet[] {
  const spans: CharSpan[] = [];

  for (const m of text.matchAll(LINK_RE)) {
    const uri = trimLink(m[2]);
    if (!isValidHttpUrl(uri)) continue;
    const start = (m.index ?? 0) + m[1].length;
    spans.push({ start, end: start + uri.length, facet: (b) => ({ type: 'link', uri, ...b }) });
  }

  for (const m of text.matchAll(MENTION_RE)) {
    const handle = m[3].replace(/[.-]+$/, '');
    if (!isValidHandle(handle)) continue;
    const start = (m.index ?? 0) + m[1].length;
    spans.push({
      start,
      end: start + 1 + handle.length,
      facet: (b) => ({ type: 'mention', handle: handle.toLowerCase(), ...b }),
    });
  }

  for (const m of text.matchAll(TAG_RE)) {
    const body = m[2];
    if (!body) continue;
    const tag = body.trim().replace(/\p{P}+$/gu, '');
    if (tag.length === 0 || tag.length > MAX_TAG_LENGTH) continue;
    const start = (m.index ?? 0) + m[1].length;
    spans.push({ start, end: start + 1 + tag.length, facet: (b) => ({ type: 'tag', tag, ...b }) });
  }

  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const offsets = new ByteOffsets(text);
  const facets: DetectedFacet[] = [];
  let lastEnd = -1;
  for (const span of spans) {
    if (span.start < lastEnd) continue;
    lastEnd = span.end;
    facets.push(span.facet({ byteStart: offsets.at(span.start), byteEnd: offsets.at(span.end) }));
  }
  return facets;
}

/** Builds the record facet; a mention needs the DID its handle resolved to. */
export function toRecordFacet(detected: DetectedFacet, mentionDid?: string): Facet | null {
  const index = { byteStart: detected.byteStart, byteEnd: detected.byteEnd };
  switch (detected.type) {
    case 'link':
      return { index, features: [{ $type: 'app.bsky.richtext.facet#link', uri: detected.uri }] };
    case 'tag':
      return { index, features: [{ $type: 'app.bsky.richtext.facet#tag', tag: detected.tag }] };
    case 'mention':
      return mentionDid ? { index, features: [{ $type: 'app.bsky.richtext.facet#mention', did: mentionDid }] } : null;
  }
}
