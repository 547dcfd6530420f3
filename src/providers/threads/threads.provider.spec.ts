import { OutboundHttp } from '../../common/http/outbound-http';
import type { MediaDescriptor } from '../social-provider.interface';
import { THREADS_LIMITS, THREADS_MAX_ALT_TEXT } from './threads.limits';
import { ThreadsProvider } from './threads.provider';

describe('Threads validation', () => {
  const http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 1000 });
  const threads = new ThreadsProvider(http, { pollMs: 10, maxWaitMs: 100 });
  afterAll(() => http.close());
  const image = (altText: string): MediaDescriptor => ({
    id: 'm1',
    mimeType: 'image/png',
    size: 1000,
    width: 100,
    height: 100,
    filename: 'a.png',
    altText,
  });

  it("refuses an alt text over the 1,000 characters of Threads' reference (alt_text), takes 1,000", () => {
    expect(THREADS_MAX_ALT_TEXT).toBe(1000);
    const long = threads.validate({ content: 'x', media: [image('a'.repeat(1001))] }, THREADS_LIMITS);
    expect(long).toContainEqual({
      field: 'mediaIds',
      message: 'The alt text of media m1 has 1001 characters; Threads allows 1000',
    });
    expect(threads.validate({ content: 'x', media: [image('a'.repeat(1000))] }, THREADS_LIMITS)).toEqual([]);
  });
});
