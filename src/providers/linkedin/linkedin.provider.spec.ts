import { OutboundHttp } from '../../common/http/outbound-http';
import {
  ApiVersionRetiredError,
  ContentRejectedError,
  InvalidCredentialsError,
  TransientProviderError,
} from '../provider.errors';
import type { MediaDescriptor } from '../social-provider.interface';
import { duplicateRefusal, mapLinkedInFailure, secondsUntilUtcMidnight } from './linkedin-api.client';
import { comparableText, escapeLittleText, linkedInCommentaryLength, unescapeLittleText } from './linkedin-text';
import { parseLinkedInCredentials } from './linkedin.credentials';
import { LINKEDIN_LIMITS } from './linkedin.limits';
import { Readable } from 'node:stream';
import { MediaSizeMismatchError } from '../media-stream.util';
import type { PublishMedia } from '../social-provider.interface';
import { LinkedInProvider, partBytes } from './linkedin.provider';

const image = (size: number, id = 'm1', width = 100, height = 100): MediaDescriptor => ({
  id,
  mimeType: 'image/png',
  size,
  width,
  height,
  filename: 'a.png',
});

describe('LinkedIn little text', () => {
  it('escapes every reserved character outside URLs and hashtags', () => {
    expect(escapeLittleText('Launch (beta) [v2] <now> a_b *x* ~y~ {z} @team | 50% \\ done')).toBe(
      'Launch \\(beta\\) \\[v2\\] \\<now\\> a\\_b \\*x\\* \\~y\\~ \\{z\\} \\@team \\| 50% \\\\ done',
    );
  });

  it('keeps hashtags and URLs as they are, escapes a lone #', () => {
    expect(escapeLittleText('#launch day: see https://example.com/a_(b) # 1')).toBe(
      '#launch day: see https://example.com/a_(b) \\# 1',
    );
  });

  it('unescapes what it escaped', () => {
    const text = 'a (b) [c] #tag _x_ \\ # @me';
    expect(unescapeLittleText(escapeLittleText(text))).toBe(text);
  });

  it('counts the commentary as sent, escapes included', () => {
    expect(linkedInCommentaryLength('hello')).toBe(5);
    expect(linkedInCommentaryLength('(a)')).toBe(5);
    expect(linkedInCommentaryLength('😀')).toBe(2);
  });

  it('compares texts with spacing collapsed', () => {
    expect(comparableText(' a \n\n b ')).toBe('a b');
  });
});

describe('LinkedIn failures', () => {
  const response = (status: number, data: unknown, headers: Record<string, string> = {}) => ({ status, data, headers });

  it('recognizes the DUPLICATE_POST refusal and the URN it names', () => {
    const body = {
      errorDetailType: 'com.linkedin.common.error.BadRequest',
      message:
        'com.linkedin.content.common.exception.BadRequestResponseException: Content is a duplicate of urn:li:share:7141138937766391808',
      errorDetails: { inputErrors: [{ description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' }] },
      status: 422,
    };
    expect(duplicateRefusal(422, body)).toEqual({ duplicate: true, urn: 'urn:li:share:7141138937766391808' });
    expect(duplicateRefusal(422, { status: 422, message: 'ERROR :: /commentary :: too long' })).toEqual({
      duplicate: false,
      urn: null,
    });
    expect(duplicateRefusal(400, body).duplicate).toBe(false);
  });

  it('waits for Retry-After on a 429, else for the daily reset at midnight UTC', () => {
    const withHeader = mapLinkedInFailure(response(429, { status: 429 }, { 'retry-after': '7' }), 'content');
    expect(withHeader).toBeInstanceOf(TransientProviderError);
    expect((withHeader as TransientProviderError).retryAfterSeconds).toBe(7);
    const without = mapLinkedInFailure(response(429, { status: 429, code: 'TOO_MANY_REQUESTS' }), 'content');
    const wait = (without as TransientProviderError).retryAfterSeconds!;
    expect(Math.abs(wait - secondsUntilUtcMidnight())).toBeLessThanOrEqual(1);
    expect(secondsUntilUtcMidnight(Date.parse('2026-11-23T23:59:00Z'))).toBe(60);
  });

  it('maps 5xx to transient and other 4xx to refusals', () => {
    expect(mapLinkedInFailure(response(503, {}), 'content')).toBeInstanceOf(TransientProviderError);
    const retired = mapLinkedInFailure(
      response(426, { status: 426, code: 'NONEXISTENT_VERSION', message: 'Requested version 202401 is not active' }),
      'content',
      '202401',
    );
    expect(retired).toBeInstanceOf(ApiVersionRetiredError);
    expect(retired.transient).toBe(false);
    expect((retired as ApiVersionRetiredError).setting).toBe('LINKEDIN_API_VERSION');
    expect(retired.message).toMatch(/API version 202401 .*set LINKEDIN_API_VERSION/);
    expect(mapLinkedInFailure(response(422, { message: 'bad' }), 'content')).toBeInstanceOf(ContentRejectedError);
  });
});

describe('LinkedInProvider.validate', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new LinkedInProvider(http, '202610');
  afterAll(() => http.close());

  it('accepts 3000 characters and 20 images, refuses more', () => {
    expect(provider.validate({ content: 'x'.repeat(3000), media: [] }, LINKEDIN_LIMITS)).toEqual([]);
    const twenty = Array.from({ length: 20 }, (_, i) => image(10, `m${i}`));
    expect(provider.validate({ content: 'ok', media: twenty }, LINKEDIN_LIMITS)).toEqual([]);
    const problems = provider.validate(
      { content: 'x'.repeat(3001), media: [...twenty, image(10, 'm20')] },
      LINKEDIN_LIMITS,
    );
    expect(problems.map((p) => p.field).sort()).toEqual(['content', 'mediaIds']);
  });

  it('counts escaped reserved characters twice', () => {
    const problems = provider.validate({ content: `${'x'.repeat(2999)}(`, media: [] }, LINKEDIN_LIMITS);
    expect(problems).toEqual([{ field: 'content', message: expect.stringContaining('3001 characters') }]);
  });

  it('refuses images above LinkedIn pixel limit and unsupported types', () => {
    const problems = provider.validate(
      { content: 'ok', media: [image(10, 'big', 8000, 5000), { ...image(10, 'webp'), mimeType: 'image/webp' }] },
      LINKEDIN_LIMITS,
    );
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining('image/webp'),
      expect.stringContaining('40000000 pixels'),
    ]);
  });
});

describe('LinkedIn credentials', () => {
  it('reads comma- or space-separated scopes and the author URN', () => {
    expect(
      parseLinkedInCredentials({
        accessToken: 'a',
        apiBaseUrl: 'https://api.linkedin.com/',
        scope: 'openid,profile w_member_social',
        authorUrn: 'urn:li:organization:2414183',
      }),
    ).toEqual({
      accessToken: 'a',
      apiBaseUrl: 'https://api.linkedin.com',
      scopes: ['openid', 'profile', 'w_member_social'],
      authorUrn: 'urn:li:organization:2414183',
    });
  });

  it('refuses an author that is not a person or organization URN', () => {
    expect(() =>
      parseLinkedInCredentials({
        accessToken: 'a',
        apiBaseUrl: 'https://api.linkedin.com',
        authorUrn: 'urn:li:group:1',
      }),
    ).toThrow(InvalidCredentialsError);
  });
});

describe('LinkedIn video', () => {
  const http = new OutboundHttp({ allowPrivate: true });
  const provider = new LinkedInProvider(http, '202601');
  afterAll(() => http.close());
  const video = (durationMs: number): MediaDescriptor => ({
    id: 'v1',
    mimeType: 'video/quicktime',
    size: 1_000_000,
    width: 1920,
    height: 1080,
    filename: 'v.mov',
    durationMs,
  });

  it('takes one video of 3 s to 30 min (a MOV is converted before the upload)', () => {
    expect(provider.validate({ content: 'hi', media: [video(3000)] }, LINKEDIN_LIMITS)).toEqual([]);
    expect(provider.validate({ content: 'hi', media: [video(2000)] }, LINKEDIN_LIMITS)).toEqual([
      { field: 'mediaIds[0]', message: 'Video v1 is 2 s long; LinkedIn takes at least 3 s' },
    ]);
    expect(provider.validate({ content: 'hi', media: [video(1_801_000)] }, LINKEDIN_LIMITS)).toEqual([
      { field: 'mediaIds[0]', message: 'Video v1 is 1801 s long; LinkedIn takes at most 1800 s' },
    ]);
  });

  const media = (chunks: Buffer[], size: number): PublishMedia =>
    ({ id: 'v1', size, open: () => Readable.from(chunks) }) as unknown as PublishMedia;

  it('reads the parts LinkedIn names in order from one pass over the stream, whatever its chunking', async () => {
    const bytes = Buffer.from(Array.from({ length: 10 }, (_, i) => i));
    const parts = [
      { uploadUrl: 'a', firstByte: 0, lastByte: 3 },
      { uploadUrl: 'b', firstByte: 4, lastByte: 7 },
      { uploadUrl: 'c', firstByte: 8, lastByte: 9 },
    ];
    const got: Buffer[] = [];
    for await (const part of partBytes(
      media([bytes.subarray(0, 3), bytes.subarray(3, 9), bytes.subarray(9)], 10),
      parts,
    )) {
      got.push(part);
    }
    expect(got.map((b) => [...b])).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
  });

  it('fails when the stored bytes are fewer than declared, never sending a short last part', async () => {
    const parts = [
      { uploadUrl: 'a', firstByte: 0, lastByte: 3 },
      { uploadUrl: 'b', firstByte: 4, lastByte: 7 },
    ];
    const read = async () => {
      for await (const part of partBytes(media([Buffer.alloc(6)], 8), parts)) void part;
    };
    await expect(read()).rejects.toBeInstanceOf(MediaSizeMismatchError);
  });
});
