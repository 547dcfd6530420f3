import { OutboundHttp } from '../../common/http/outbound-http';
import { InvalidCredentialsError } from '../provider.errors';
import { parseTelegramCredentials } from './telegram.credentials';
import { TELEGRAM_LIMITS } from './telegram.limits';
import { TelegramProvider } from './telegram.provider';
import { compileOptionsSchema, optionsProblems } from '../options-schema';
import { TELEGRAM_OPTIONS_SCHEMA } from './telegram.options';

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

describe('Telegram photo dimensions', () => {
  const http = new OutboundHttp({ allowPrivate: true });
  const provider = new TelegramProvider(http, 'http://127.0.0.1:9');
  afterAll(() => http.close());
  const photo = (width: number, height: number) => ({ ...media('p', 'image/jpeg', 1000), width, height });

  // sendPhoto: "The photo's width and height must not exceed 10000 in total. Width and height ratio
  // must be at most 20."
  it('takes photos whose sides add up to 10,000 pixels at most, at most 20 times as long as wide', () => {
    expect(provider.validate({ content: 'x', media: [photo(6000, 4000)] }, TELEGRAM_LIMITS)).toEqual([]);
    expect(provider.validate({ content: 'x', media: [photo(4000, 200)] }, TELEGRAM_LIMITS)).toEqual([]);
    expect(provider.validate({ content: 'x', media: [photo(6000, 4001)] }, TELEGRAM_LIMITS)).toEqual([
      { field: 'mediaIds', message: expect.stringContaining('10000') },
    ]);
    expect(provider.validate({ content: 'x', media: [photo(201, 4021)] }, TELEGRAM_LIMITS)).toEqual([
      { field: 'mediaIds', message: expect.stringContaining('20') },
    ]);
  });
});

describe('Telegram options', () => {
  const validate = compileOptionsSchema('telegram', TELEGRAM_OPTIONS_SCHEMA);
  const problems = (options: unknown) => optionsProblems(validate, options);

  it('takes silent, protected, preview-less messages to a forum topic, none required', () => {
    expect(problems({})).toEqual([]);
    expect(
      problems({ disableNotification: true, protectContent: true, disableLinkPreview: true, messageThreadId: 42 }),
    ).toEqual([]);
  });

  it('names the field of a wrong value or an unknown option', () => {
    expect(problems({ disableNotification: 'yes' })).toEqual([
      { field: 'disableNotification', message: 'must be a boolean' },
    ]);
    expect(problems({ messageThreadId: 0 })).toEqual([{ field: 'messageThreadId', message: 'must be at least 1' }]);
    expect(problems({ messageThreadId: 1.5 })).toEqual([{ field: 'messageThreadId', message: 'must be an integer' }]);
    expect(problems({ silent: true })).toEqual([{ field: 'silent', message: 'is not a known field' }]);
  });
});
