import { detectFacets, isValidHandle, toRecordFacet } from './facets';

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

describe('detectFacets', () => {
  it('uses UTF-8 byte offsets after an emoji', () => {
    const text = '🦋 see https://example.com/x #tag and @bob.test';
    const facets = detectFacets(text);
    expect(facets).toEqual([
      { type: 'link', uri: 'https://example.com/x', byteStart: 9, byteEnd: 30 },
      { type: 'tag', tag: 'tag', byteStart: 31, byteEnd: 35 },
      { type: 'mention', handle: 'bob.test', byteStart: 40, byteEnd: 49 },
    ]);
    const buf = Buffer.from(text, 'utf8');
    expect(buf.subarray(9, 30).toString()).toBe('https://example.com/x');
    expect(buf.subarray(31, 35).toString()).toBe('#tag');
    expect(buf.subarray(40, 49).toString()).toBe('@bob.test');
  });

  it('handles multi-byte text around facets', () => {
    const text = 'Grüße 👨‍👩‍👧 #Straße, (https://ex.org/a_(b)) …';
    const facets = detectFacets(text);
    const tagStart = bytes('Grüße 👨‍👩‍👧 ');
    const linkStart = bytes('Grüße 👨‍👩‍👧 #Straße, (');
    expect(facets).toEqual([
      { type: 'tag', tag: 'Straße', byteStart: tagStart, byteEnd: tagStart + bytes('#Straße') },
      {
        type: 'link',
        uri: 'https://ex.org/a_(b)',
        byteStart: linkStart,
        byteEnd: linkStart + bytes('https://ex.org/a_(b)'),
      },
    ]);
  });

  it('trims trailing punctuation from links and mentions', () => {
    const facets = detectFacets('Read https://example.com/page. Thanks @alice.bsky.social!');
    expect(facets.map((f) => (f.type === 'link' ? f.uri : f.type === 'mention' ? f.handle : f.tag))).toEqual([
      'https://example.com/page',
      'alice.bsky.social',
    ]);
  });

  it('ignores things that are not facets', () => {
    expect(detectFacets('email me at bob@example.com, #123 is a number, @nodot, a#b')).toEqual([]);
    expect(detectFacets('ftp://example.com and http:// alone')).toEqual([]);
  });

  it('does not report a tag inside a link', () => {
    const facets = detectFacets('https://example.com/#anchor');
    expect(facets).toHaveLength(1);
    expect(facets[0].type).toBe('link');
  });
});

describe('toRecordFacet', () => {
  it('builds lexicon features and drops unresolved mentions', () => {
    const [link, tag, mention] = detectFacets('https://a.io #x @bob.test');
    expect(toRecordFacet(link)).toEqual({
      index: { byteStart: 0, byteEnd: 12 },
      features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://a.io' }],
    });
    expect(toRecordFacet(tag)?.features).toEqual([{ $type: 'app.bsky.richtext.facet#tag', tag: 'x' }]);
    expect(toRecordFacet(mention)).toBeNull();
    expect(toRecordFacet(mention, 'did:plc:bob')?.features).toEqual([
      { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:bob' },
    ]);
  });
});

describe('isValidHandle', () => {
  it.each(['alice.test', 'bob.bsky.social', 'a-b.example.com'])('accepts %s', (h) =>
    expect(isValidHandle(h)).toBe(true),
  );
  it.each(['nodot', '-a.test', 'a.1', 'a..b'])('rejects %s', (h) => expect(isValidHandle(h)).toBe(false));
});
