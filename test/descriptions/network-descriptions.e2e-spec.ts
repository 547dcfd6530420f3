import {
  blueskyDescription,
  facebookDescription,
  googleBusinessDescription,
  instagramDescription,
  lemmyDescription,
  nostrDescription,
  threadsDescription,
  wordpressDescription,
  youtubeDescription,
} from '../fakes/descriptions/networks';
import type { DescribedRequest } from '../fakes/descriptions/description';
import { OpenApiDescription } from '../fakes/descriptions/openapi-description';
import { ReferenceDescription } from '../fakes/descriptions/reference-description';
import { finalizeEvent, generateSecretKey } from 'nostr-tools';

/** A request as a fake receives it. */
function request(
  method: string,
  target: string,
  body?: unknown,
  contentType = 'application/json',
  headers: Record<string, string> = {},
): DescribedRequest {
  const url = new URL(target, 'http://fake.invalid');
  const bytes =
    body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body), 'utf8');
  return {
    method,
    path: url.pathname,
    query: url.searchParams,
    contentType: body === undefined ? '' : contentType,
    contentTypeHeader: body === undefined ? '' : contentType,
    body: bytes,
    headers,
  };
}

/** A Graph POST with form parameters. */
const form = (target: string, params: Record<string, string>) =>
  request('POST', target, Buffer.from(new URLSearchParams(params).toString()), 'application/x-www-form-urlencoded');

describe('OpenApiDescription', () => {
  const doc = {
    openapi: '3.0.0',
    servers: [{ url: 'https://api.example.test/v2' }],
    paths: {
      '/things/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } }],
        get: {
          parameters: [
            {
              name: 'fields',
              in: 'query',
              style: 'form',
              explode: false,
              schema: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
            },
            { name: 'limit', in: 'query', required: true, schema: { type: 'integer', maximum: 10 } },
          ],
        },
      },
      '/things/special': { get: {} },
      '/things': {
        post: {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/NewThing' } },
              'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/NewThing' } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        NewThing: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: { name: { type: 'string', maxLength: 5 }, size: { type: 'integer' } },
        },
      },
    },
  };
  const d = new OpenApiDescription(doc, { source: 'the example API' });

  it('accepts what the document describes', () => {
    expect(d.check(request('GET', '/v2/things/12?fields=a,b&limit=3'))).toEqual({
      operation: 'GET /things/{id}',
      problems: [],
    });
    expect(d.check(request('GET', '/v2/things/special')).operation).toBe('GET /things/special');
    expect(d.check(request('POST', '/v2/things', { name: 'abc', size: 2 })).problems).toEqual([]);
    expect(
      d.check(request('POST', '/v2/things', Buffer.from('name=abc&size=2'), 'application/x-www-form-urlencoded'))
        .problems,
    ).toEqual([]);
  });

  it('refuses another base path, an unknown path or method, a bad path parameter', () => {
    expect(d.check(request('GET', '/things/12?limit=1')).problems[0]).toMatch(/not under \/v2/);
    expect(d.check(request('GET', '/v2/nothing')).problems[0]).toMatch(/not an operation/);
    expect(d.check(request('DELETE', '/v2/things/12')).problems[0]).toMatch(/takes GET, not DELETE/);
    expect(d.check(request('GET', '/v2/things/x1?limit=1')).problems[0]).toMatch(/^path id must match pattern/);
  });

  it('refuses unknown query parameters, missing required ones and values out of their schema', () => {
    expect(d.check(request('GET', '/v2/things/1?limit=1&tweet.fields=a')).problems).toEqual([
      `query parameter "tweet.fields" is not one of GET /things/{id}'s (fields, limit)`,
    ]);
    expect(d.check(request('GET', '/v2/things/1')).problems).toEqual([
      'query parameter "limit" is required by GET /things/{id}',
    ]);
    expect(d.check(request('GET', '/v2/things/1?limit=11&fields=a,c')).problems).toEqual([
      'query limit must be <= 10',
      'query fields/1 must be equal to one of the allowed values: ["a","b"]',
    ]);
  });

  it('checks bodies with additionalProperties, required fields and the content type', () => {
    expect(d.check(request('POST', '/v2/things', { nam: 'abc' })).problems).toEqual([
      "body must have required property 'name'",
      'body must not have the property "nam"',
    ]);
    expect(d.check(request('POST', '/v2/things', { name: 'abcdef' })).problems).toEqual([
      'body/name must NOT have more than 5 characters',
    ]);
    expect(d.check(request('POST', '/v2/things')).problems).toEqual(['POST /things requires a request body']);
    expect(d.check(request('POST', '/v2/things', Buffer.from('x'), 'text/plain')).problems[0]).toMatch(
      /takes application\/json, application\/x-www-form-urlencoded, not "text\/plain"/,
    );
  });
});

describe('LexiconDescription (Bluesky)', () => {
  const d = blueskyDescription();
  const blob = (size: number, mimeType: string) => ({
    $type: 'blob',
    ref: { $link: 'bafkreibme22gw2h7y2h7tg2fhqotaqjucnbc24deqo72b6mkl2egezxhvy' },
    mimeType,
    size,
  });
  const post = (embed?: unknown) => ({
    repo: 'did:plc:abc',
    collection: 'app.bsky.feed.post',
    record: {
      $type: 'app.bsky.feed.post',
      text: 'hello',
      createdAt: '2026-11-29T10:00:00.000Z',
      ...(embed ? { embed } : {}),
    },
  });

  it('accepts a post record and a described query', () => {
    expect(d.check(request('POST', '/xrpc/com.atproto.repo.createRecord', post())).problems).toEqual([]);
    expect(d.check(request('GET', '/xrpc/app.bsky.video.getJobStatus?jobId=j1')).problems).toEqual([]);
  });

  it('refuses an undeclared parameter, a wrong method, an unknown method and a malformed record', () => {
    expect(
      d.check(request('POST', '/xrpc/app.bsky.video.uploadVideo?did=did:plc:x', Buffer.from('v'), 'video/mp4'))
        .problems,
    ).toEqual(['app.bsky.video.uploadVideo declares no parameter "did" (it takes none)']);
    expect(d.check(request('POST', '/xrpc/app.bsky.video.getJobStatus?jobId=j')).problems[0]).toMatch(
      /a query: GET, not POST/,
    );
    expect(d.check(request('GET', '/xrpc/app.bsky.feed.nothing')).problems[0]).toMatch(/not a method/);
    const renamed = post();
    (renamed.record as Record<string, unknown>).txt = 'hello';
    delete (renamed.record as Record<string, unknown>).text;
    expect(d.check(request('POST', '/xrpc/com.atproto.repo.createRecord', renamed)).problems).toEqual([
      'Record must have the property "text"',
    ]);
  });

  it('checks blobs against the lexicon: images up to 2,000,000 bytes, videos up to 300,000,000', () => {
    const images = (size: number) => ({
      $type: 'app.bsky.embed.images',
      images: [{ alt: '', image: blob(size, 'image/png') }],
    });
    const video = (size: number) => ({ $type: 'app.bsky.embed.video', video: blob(size, 'video/mp4') });
    const check = (embed: unknown) =>
      d.check(request('POST', '/xrpc/com.atproto.repo.createRecord', post(embed))).problems;
    expect(check(images(2_000_000))).toEqual([]);
    expect(check(images(2_000_001))).toEqual([
      'Record/embed/images/0/image is 2000001 bytes; the lexicon allows 2000000',
    ]);
    expect(check(video(300_000_000))).toEqual([]);
    expect(check(video(300_000_001))).toEqual(['Record/embed/video is 300000001 bytes; the lexicon allows 300000000']);
  });
});

describe('GraphSpecDescription (Meta)', () => {
  const ig = instagramDescription((id) =>
    id === 'me' || id === '178'
      ? 'IGUserForIGOnlyAPI'
      : id === 'c1'
        ? 'ShadowIGMediaBuilder'
        : id === 'm1'
          ? 'IGMediaForIGOnlyAPI'
          : undefined,
  );
  const fb = facebookDescription((id) => (id === 'me' ? 'User' : id === 'p1' ? 'Page' : undefined));
  const threads = threadsDescription((id) => (id === 'me' || id === 't1' ? 'ThreadsUser' : undefined));

  it("accepts the adapters' calls: containers (image, Reel, carousel), publish, status, insights, Page posts", () => {
    const ok = [
      ig.check(
        form('/v25.0/178/media', {
          image_url: 'https://x/p.jpg',
          alt_text: 'a',
          caption: 'c',
          is_carousel_item: 'true',
        }),
      ),
      ig.check(
        form('/v25.0/178/media', {
          media_type: 'REELS',
          video_url: 'https://x/v.mp4',
          cover_url: 'https://x/c.jpg',
          share_to_feed: 'true',
        }),
      ),
      ig.check(form('/v25.0/178/media', { media_type: 'CAROUSEL', children: '1,2', caption: 'c' })),
      ig.check(form('/v25.0/178/media_publish', { creation_id: '17900' })),
      ig.check(request('GET', '/v25.0/c1?fields=status_code,status')),
      ig.check(request('GET', '/v25.0/m1/insights?metric=views,likes,comments,shares,saved,reach')),
      fb.check(form('/v25.0/p1/video_reels', { upload_phase: 'START' })),
      fb.check(form('/v25.0/p1/feed', { message: 'hi', attached_media: '[{"media_fbid":"1"}]' })),
      fb.check(request('GET', '/v25.0/me/accounts?fields=id,name,access_token,tasks')),
      threads.check(form('/v1.0/t1/threads', { media_type: 'TEXT', text: 'hi', reply_to_id: '9' })),
    ];
    for (const check of ok) expect(check.problems).toEqual([]);
    // An object the fake does not hold is left to the fake's own "does not exist" answer.
    expect(ig.check(request('GET', '/v25.0/unknown?fields=x')).problems).toEqual([]);
  });

  it('refuses unknown edges, parameters and fields, wrong types and enums, missing required parameters', () => {
    expect(ig.check(form('/v25.0/178/media', { imageurl: 'https://x/p.jpg' })).problems[0]).toMatch(
      /parameter "imageurl" is not one of POST IGUserForIGOnlyAPI\/media's \(.*image_url/,
    );
    expect(ig.check(form('/v25.0/178/media', { share_to_feed: 'yes' })).problems).toEqual([
      '(#100) parameter "share_to_feed" must be a boolean, got "yes"',
    ]);
    expect(ig.check(form('/v25.0/178/media_publish', {})).problems).toEqual([
      '(#100) The parameter creation_id is required by POST IGUserForIGOnlyAPI/media_publish',
    ]);
    expect(ig.check(request('GET', '/v25.0/c1?fields=status_code,state')).problems).toEqual([
      '(#100) Tried accessing nonexisting field (state) on node type (ShadowIGMediaBuilder)',
    ]);
    expect(ig.check(request('GET', '/v25.0/m1/insights?metric=impressionz')).problems[0]).toMatch(/must be one of/);
    expect(fb.check(form('/v25.0/p1/video_reels', { upload_phase: 'start' })).problems[0]).toMatch(
      /upload_phase" must be one of FINISH, START, got "start"/,
    );
    expect(fb.check(form('/v25.0/p1/statuses', { message: 'x' })).problems[0]).toMatch(/Page has no edge "statuses"/);
    expect(threads.check(form('/v1.0/t1/threads', { text: 'x' })).problems).toEqual([
      '(#100) The parameter media_type is required by POST ThreadsUser/threads',
    ]);
    expect(
      threads.check(form('/v1.0/t1/threads', { media_type: 'IMAGE', alt_text: 'a'.repeat(1001) })).problems,
    ).toEqual(['(#100) parameter "alt_text" has 1001 characters; at most 1000 are allowed']);
  });
});

describe('DiscoveryDescription (Google)', () => {
  const yt = youtubeDescription();
  const gbp = googleBusinessDescription();
  const insert = (body: unknown, headers: Record<string, string>) =>
    yt.check(
      request(
        'POST',
        '/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&notifySubscribers=true',
        body,
        'application/json',
        headers,
      ),
    );
  const video = {
    snippet: { title: 't', description: 'd', tags: ['a'] },
    status: { privacyStatus: 'unlisted', selfDeclaredMadeForKids: false },
  };

  it('checks videos.insert: parameters, the Video body closed to unknown names, and the media announced', () => {
    const media = { 'x-upload-content-length': '1000', 'x-upload-content-type': 'video/mp4' };
    expect(insert(video, media)).toEqual({ operation: 'youtube.videos.insert', problems: [] });
    expect(insert({ ...video, snippet: { titel: 't' } }, media).problems).toEqual([
      `Invalid JSON payload received. Unknown name "titel" at 'Video/snippet': Cannot find field.`,
    ]);
    expect(insert({ ...video, status: { privacyStatus: 'friends' } }, media).problems[0]).toMatch(
      /privacyStatus must be equal to one of/,
    );
    expect(insert(video, { ...media, 'x-upload-content-type': 'image/png' }).problems).toEqual([
      "Media type 'image/png' is not supported by youtube.videos.insert",
    ]);
    expect(
      yt.check(request('POST', '/upload/youtube/v3/videos?uploadType=resumable&notifySubscribers=maybe', video))
        .problems,
    ).toEqual([
      'Invalid value for notifySubscribers: "maybe" is not a boolean',
      'Required parameter: part (youtube.videos.insert)',
    ]);
  });

  it("refuses a thumbnail over thumbnails.set's mediaUpload.maxSize (2,097,152 bytes) or of another type", () => {
    const thumb = (bytes: number, type = 'image/jpeg') =>
      yt.check(
        request('POST', '/upload/youtube/v3/thumbnails/set?videoId=v1&uploadType=media', Buffer.alloc(bytes), type),
      ).problems;
    expect(thumb(2_097_152)).toEqual([]);
    expect(thumb(2_097_153)).toEqual([
      'Media larger than 2097152 bytes (youtube.thumbnails.set mediaUpload.maxSize): 2097153',
    ]);
    expect(thumb(10, 'image/webp')).toEqual(["Media type 'image/webp' is not supported by youtube.thumbnails.set"]);
  });

  it('checks Business Profile calls on each API: unknown query parameters, path patterns, LocalPost fields', () => {
    expect(gbp.check(request('GET', '/v1/accounts?pageSize=20')).problems).toEqual([]);
    expect(gbp.check(request('GET', '/v1/accounts/1/locations?readMask=name&pageSize=100')).problems).toEqual([]);
    expect(gbp.check(request('GET', '/v1/accounts?page_size=20')).problems[0]).toMatch(
      /Cannot bind query parameter. Field 'page_size'/,
    );
    const post = {
      summary: 's',
      topicType: 'EVENT',
      event: {
        title: 't',
        schedule: {
          startDate: { year: 2027, month: 1, day: 2 },
          startTime: { hours: 9, minutes: 0, seconds: 0, nanos: 0 },
          endDate: { year: 2027, month: 1, day: 3 },
        },
      },
      media: [{ mediaFormat: 'PHOTO', sourceUrl: 'https://x/p.jpg' }],
    };
    expect(gbp.check(request('POST', '/v4/accounts/1/locations/2/localPosts', post)).problems).toEqual([]);
    expect(
      gbp.check(request('POST', '/v4/accounts/1/locations/2/localPosts', { ...post, topicType: 'NEWS' })).problems[0],
    ).toMatch(/topicType must be equal to one of/);
    expect(gbp.check(request('POST', '/v4/accounts/1/localPosts', post)).problems[0]).toMatch(
      /parent: "accounts\/1" does not match/,
    );
    expect(gbp.check(request('GET', '/v4/accounts/1/locations/2/localPosts?pageSize=500')).problems).toEqual([
      'Invalid value for pageSize: 500 is above 100',
    ]);
  });
});

describe('ReferenceDescription (reference pages recorded as schemas)', () => {
  const d = new ReferenceDescription({
    source: 'the example pages',
    basePath: '/api',
    operations: {
      'GET /items/{id}': {
        reference: 'items page',
        query: {
          type: 'object',
          required: ['fields'],
          properties: { fields: { type: 'string' }, n: { type: 'integer' } },
        },
      },
      'POST /send': {
        reference: 'send page',
        bodyRequired: true,
        body: {
          'application/json': { $ref: '#/definitions/Send' },
          'multipart/form-data': {
            type: 'object',
            required: ['chat'],
            additionalProperties: { const: '' },
            properties: { chat: { type: 'string' }, reply: { $ref: '#/definitions/Reply' } },
          },
        },
      },
    },
    definitions: {
      Send: {
        type: 'object',
        additionalProperties: false,
        required: ['chat', 'text'],
        properties: { chat: { type: 'string' }, text: { type: 'string', maxLength: 5 } },
      },
      Reply: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'integer' } } },
    },
  });
  const multipart = (parts: Array<[string, string, boolean?]>) => {
    const boundary = 'b0undary';
    const body = parts
      .map(
        ([name, value, file]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="a.png"' : ''}\r\n\r\n${value}\r\n`,
      )
      .join('');
    // As a fake passes it: the content type without parameters, the whole header beside it.
    return {
      ...request('POST', '/api/send', Buffer.from(`${body}--${boundary}--\r\n`), 'multipart/form-data'),
      contentTypeHeader: `multipart/form-data; boundary=${boundary}`,
    };
  };

  it('checks the recorded calls as an OpenAPI document would: path, query, body', () => {
    expect(d.check(request('GET', '/api/items/7?fields=a&n=2')).problems).toEqual([]);
    expect(d.check(request('GET', '/api/items/7?n=2&limit=1')).problems).toEqual([
      `query parameter "limit" is not one of GET /items/{id}'s (fields, n)`,
      'query parameter "fields" is required by GET /items/{id}',
    ]);
    expect(d.check(request('POST', '/api/send', { chat: 'c', text: 'hello' })).problems).toEqual([]);
    expect(d.check(request('POST', '/api/send', { chat: 'c', message: 'hello' })).problems).toEqual([
      "body must have required property 'text'",
      'body must not have the property "message"',
    ]);
    expect(d.check(request('GET', '/api/nothing')).problems[0]).toMatch(/not an operation of the example pages/);
  });

  it('reads multipart fields typed as objects as JSON, and takes other parts only as files', () => {
    expect(
      d.check(
        multipart([
          ['chat', 'c'],
          ['reply', '{"id":3}'],
          ['file0', 'bytes', true],
        ]),
      ).problems,
    ).toEqual([]);
    expect(
      d.check(
        multipart([
          ['chat', 'c'],
          ['reply', '{"id":"x"}'],
        ]),
      ).problems,
    ).toEqual(['form/reply/id must be integer']);
    expect(
      d.check(
        multipart([
          ['chat', 'c'],
          ['reply', 'not json'],
        ]),
      ).problems[0],
    ).toBe('form/reply is not JSON');
    expect(
      d.check(
        multipart([
          ['chat', 'c'],
          ['caption', 'text'],
        ]),
      ).problems,
    ).toEqual(['form/caption must be equal to constant']);
  });
});

describe('OpenApiDescription oneOfAsAnyOf (Pinterest)', () => {
  const doc = {
    openapi: '3.0.3',
    paths: {
      '/m': {
        get: {
          parameters: [
            {
              name: 'types',
              in: 'query',
              explode: false,
              schema: { type: 'array', items: { oneOf: [{ enum: ['A', 'B'] }, { enum: ['A', 'C'] }] } },
            },
          ],
        },
      },
    },
  };

  it('takes a value two alternatives share only when oneOf is read as anyOf', () => {
    const strict = new OpenApiDescription(doc, { source: 'strict', basePath: '' });
    const lenient = new OpenApiDescription(doc, { source: 'lenient', basePath: '', oneOfAsAnyOf: true });
    expect(strict.check(request('GET', '/m?types=A')).problems).not.toEqual([]);
    expect(lenient.check(request('GET', '/m?types=A,B,C')).problems).toEqual([]);
    expect(lenient.check(request('GET', '/m?types=D')).problems).not.toEqual([]);
  });
});

describe('MessageSchemaDescription (Nostr NIP-01 messages)', () => {
  const d = nostrDescription();
  const sk = generateSecretKey();
  const note = (tags: string[][] = [], content = 'hello') =>
    finalizeEvent({ kind: 1, created_at: 1_750_000_000, tags, content }, sk);
  const message = (msg: unknown) => request('WS', '/', msg);
  const id = 'ab'.repeat(32);

  it('accepts the messages the adapter sends: a note with marked e tags, p and imeta tags; REQ; CLOSE', () => {
    const tags = [
      ['e', id, 'wss://relay.example', 'root', id],
      ['e', id, '', 'reply'],
      ['p', id],
      ['imeta', 'url https://media.example/a.png', 'm image/png', 'dim 32x24', 'size 10', 'alt a picture'],
    ];
    expect(d.check(message(['EVENT', note(tags)]))).toEqual({ operation: 'EVENT', problems: [] });
    expect(d.check(message(['REQ', 'sps', { kinds: [1, 6, 7], '#e': [id], limit: 500 }])).problems).toEqual([]);
    expect(d.check(message(['CLOSE', 'sps'])).problems).toEqual([]);
  });

  it('refuses a renamed or missing event field, bad hex, a bad marker, imeta without url, unknown filters', () => {
    const { content, ...rest } = note();
    const renamed = d.check(message(['EVENT', { ...rest, text: content }])).problems.join('\n');
    expect(renamed).toMatch(/"text"/);
    expect(renamed).toMatch(/content/);
    expect(d.check(message(['EVENT', { ...note(), id: 'XYZ' }])).problems.join()).toMatch(/EVENT\/1\/id/);
    expect(d.check(message(['EVENT', note([['e', id, '', 'parent']])])).problems).not.toEqual([]);
    expect(d.check(message(['EVENT', note([['imeta', 'm image/png', 'alt x']])])).problems).not.toEqual([]);
    expect(d.check(message(['EVENT', note([['imeta', 'url https://a.example/x']])])).problems).not.toEqual([]);
    expect(d.check(message(['REQ', 'sps', { kinds: [1], search: 'x' }])).problems).not.toEqual([]);
    expect(d.check(message(['REQ', '', { kinds: [1] }])).problems).not.toEqual([]);
    expect(d.check(message(['PUBLISH', note()])).problems).not.toEqual([]);
  });
});

describe('the recorded references of WordPress and Lemmy', () => {
  it("WordPress: a post's status is one of the public post statuses, unknown arguments are refused", () => {
    const wp = wordpressDescription();
    const ok = request('POST', '/wp-json/wp/v2/posts', { content: 'x', status: 'draft', tags: [3], featured_media: 5 });
    expect(wp.check(ok).problems).toEqual([]);
    expect(
      wp.check(request('POST', '/wp-json/wp/v2/posts', { content: 'x', status: 'published' })).problems,
    ).not.toEqual([]);
    expect(wp.check(request('POST', '/wp-json/wp/v2/posts', { content: 'x', tag_ids: [3] })).problems.join()).toMatch(
      /tag_ids/,
    );
    expect(
      wp.check(
        request(
          'GET',
          '/wp-json/wp/v2/posts?author=7&status=publish,draft&per_page=20&context=edit&orderby=date&order=desc',
        ),
      ).problems,
    ).toEqual([]);
    expect(wp.check(request('GET', '/wp-json/wp/v2/tags?search=news&per_page=101')).problems).not.toEqual([]);
    expect(wp.check(request('POST', '/wp-json/wp/v2/tags', {})).problems.join()).toMatch(/name/);
  });

  it("Lemmy: each API version's own enums and fields", () => {
    const lemmy = lemmyDescription();
    expect(lemmy.check(request('GET', '/api/v3/post/list?community_id=11&sort=New&limit=20')).problems).toEqual([]);
    expect(lemmy.check(request('GET', '/api/v4/post/list?community_id=11&sort=new&limit=20')).problems).toEqual([]);
    expect(lemmy.check(request('GET', '/api/v4/post/list?community_id=11&sort=New&limit=20')).problems).not.toEqual([]);
    expect(
      lemmy.check(
        request('POST', '/api/v4/account/auth/login', { username_or_email: 'a', password: 'b', stay_logged_in: true }),
      ).problems,
    ).toEqual([]);
    expect(
      lemmy.check(
        request('POST', '/api/v3/user/login', { username_or_email: 'a', password: 'b', stay_logged_in: true }),
      ).problems,
    ).not.toEqual([]);
  });
});
