import { OutboundHttp } from '../../common/http/outbound-http';
import { InvalidCredentialsError } from '../provider.errors';
import { parseTelegramCredentials } from './telegram.credentials';
import { TELEGRAM_LIMITS } from './telegram.limits';
import { TelegramProvider } from './telegram.provider';

const TOKEN = '123456:AAbcdefghijklmnopqrstuvwxyz0123456789';
const media = (id: string, mimeType: string, size: number) => ({
  id,
  mimeType,
  size,
  width: null,
  height: null,
  filename: id,
});

describe('Telegram', () => {
  const http = new OutboundHttp({ allowPrivate: true });
  const provider = new TelegramProvider(http, 'http://127.0.0.1:9');
  afterAll(() => http.close());

  it('takes numeric chat ids and public @usernames, and refuses malformed tokens', () => {
    expect(parseTelegramCredentials({ botToken: TOKEN, chatId: '-1001234567890' })).toMatchObject({
      botToken: TOKEN,
      chatId: '-1001234567890',
    });
    expect(parseTelegramCredentials({ botToken: TOKEN, chatId: '@my_channel' }).chatId).toBe('@my_channel');
    expect(() => parseTelegramCredentials({ botToken: 'abc', chatId: '1' })).toThrow(InvalidCredentialsError);
    expect(() => parseTelegramCredentials({ botToken: TOKEN, chatId: 'my channel' })).toThrow(/chatId/);
  });

  it('counts UTF-16 code units, 4096 for a message and 1024 for a caption', () => {
    const emoji = '😀'.repeat(2049); // 4098 code units
    expect(provider.validate({ content: emoji, media: [] }, TELEGRAM_LIMITS)).toEqual([
      { field: 'content', message: 'The text is 4098 characters long; Telegram allows 4096' },
    ]);
    const caption = 'x'.repeat(1025);
    expect(provider.validate({ content: caption, media: [media('m1', 'image/png', 10)] }, TELEGRAM_LIMITS)).toEqual([
      expect.objectContaining({ field: 'content', message: expect.stringContaining('1024 in the caption') }),
    ]);
  });

  it('takes photos up to 10 MiB and MPEG-4 videos up to 50 MiB, up to ten items', () => {
    const MiB = 1024 * 1024;
    expect(provider.validate({ content: 'ok', media: [media('v', 'video/mp4', 40 * MiB)] }, TELEGRAM_LIMITS)).toEqual(
      [],
    );
    expect(provider.validate({ content: 'ok', media: [media('v', 'video/mp4', 51 * MiB)] }, TELEGRAM_LIMITS)).toEqual([
      expect.objectContaining({ message: expect.stringContaining('videos of at most 50') }),
    ]);
    expect(provider.validate({ content: 'ok', media: [media('p', 'image/png', 11 * MiB)] }, TELEGRAM_LIMITS)).toEqual([
      expect.objectContaining({ message: expect.stringContaining('photos of at most 10 MiB') }),
    ]);
    expect(provider.validate({ content: 'ok', media: [media('q', 'video/quicktime', 10)] }, TELEGRAM_LIMITS)).toEqual([
      expect.objectContaining({ message: expect.stringContaining('does not take video/quicktime') }),
    ]);
    const eleven = Array.from({ length: 11 }, (_, i) => media(`m${i}`, 'image/jpeg', 10));
    expect(provider.validate({ content: 'ok', media: eleven }, TELEGRAM_LIMITS)).toEqual([
      expect.objectContaining({ message: expect.stringContaining('at most 10 media') }),
    ]);
  });
});
