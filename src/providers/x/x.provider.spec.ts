import { OutboundHttp } from '../../common/http/outbound-http';
import type { MediaDescriptor } from '../social-provider.interface';
import { X_LIMITS, X_MAX_ALT_TEXT } from './x.limits';
import { XProvider } from './x.provider';

const image = (altText: string | null): MediaDescriptor => ({
  id: 'm1',
  mimeType: 'image/png',
  size: 100,
  width: 10,
  height: 10,
  filename: 'a.png',
  altText,
});

describe('XProvider.validate', () => {
  const http = new OutboundHttp({ allowPrivate: true });
  const x = new XProvider(http);
  afterAll(() => http.close());

  it('accepts alt text up to 1000 characters (counted as code points) and names media whose alt text is longer', () => {
    expect(x.validate({ content: 'hi', media: [image('a'.repeat(X_MAX_ALT_TEXT))] }, X_LIMITS)).toEqual([]);
    expect(x.validate({ content: 'hi', media: [image('😀'.repeat(X_MAX_ALT_TEXT))] }, X_LIMITS)).toEqual([]);
    expect(x.validate({ content: 'hi', media: [image(null)] }, X_LIMITS)).toEqual([]);
    expect(x.validate({ content: 'hi', media: [image('a'.repeat(X_MAX_ALT_TEXT + 1))] }, X_LIMITS)).toEqual([
      { field: 'mediaIds', message: 'The alt text of media m1 has 1001 characters; X allows 1000' },
    ]);
  });
});
