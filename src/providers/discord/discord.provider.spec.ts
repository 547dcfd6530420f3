import { OutboundHttp } from '../../common/http/outbound-http';
import { InvalidCredentialsError } from '../provider.errors';
import { parseDiscordCredentials } from './discord.credentials';
import { DISCORD_LIMITS } from './discord.limits';
import { DISCORD_WEBHOOK_ORIGINS, DiscordProvider } from './discord.provider';
import { compileOptionsSchema, optionsProblems } from '../options-schema';
import { DISCORD_OPTIONS_SCHEMA } from './discord.options';

const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const MiB = 1024 * 1024;
const media = (id: string, size: number, altText?: string) => ({
  id,
  mimeType: 'image/png',
  size,
  width: null,
  height: null,
  filename: id,
  altText,
});

describe('Discord', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  const provider = new DiscordProvider(http, DISCORD_WEBHOOK_ORIGINS);
  afterAll(() => http.close());

  it("takes webhook URLs on Discord's hosts only, normalized, with a thread id from the query", () => {
    for (const host of ['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']) {
      expect(
        parseDiscordCredentials(
          { webhookUrl: `https://${host}/api/v10/webhooks/123/${TOKEN}/` },
          DISCORD_WEBHOOK_ORIGINS,
        ),
      ).toMatchObject({
        webhookUrl: `https://${host}/api/v10/webhooks/123/${TOKEN}`,
        webhookId: '123',
        threadId: null,
      });
    }
    expect(
      parseDiscordCredentials(
        { webhookUrl: `https://discord.com/api/webhooks/123/${TOKEN}?thread_id=456` },
        DISCORD_WEBHOOK_ORIGINS,
      ).threadId,
    ).toBe('456');
    for (const webhookUrl of [
      `http://discord.com/api/webhooks/123/${TOKEN}`,
      `https://discord.com.evil.example/api/webhooks/123/${TOKEN}`,
      `https://user:pw@discord.com/api/webhooks/123/${TOKEN}`,
      `https://169.254.169.254/api/webhooks/123/${TOKEN}`,
    ]) {
      expect(() => parseDiscordCredentials({ webhookUrl }, DISCORD_WEBHOOK_ORIGINS)).toThrow(InvalidCredentialsError);
    }
  });

  it('counts characters up to 2000, and the upload limit of each file (not of all the files together)', () => {
    expect(provider.validate({ content: 'é'.repeat(2000), media: [] }, DISCORD_LIMITS)).toEqual([]);
    expect(provider.validate({ content: 'x'.repeat(2001), media: [] }, DISCORD_LIMITS)).toEqual([
      { field: 'content', message: 'The text is 2001 characters long; Discord allows 2000' },
    ]);
    // 12 MiB together, each within Discord's 10 MiB per file.
    expect(
      provider.validate({ content: 'ok', media: [media('a', 6 * MiB), media('b', 6 * MiB)] }, DISCORD_LIMITS),
    ).toEqual([]);
    expect(provider.validate({ content: 'ok', media: [media('a', 11 * MiB)] }, DISCORD_LIMITS)).toEqual([
      expect.objectContaining({ field: 'mediaIds', message: expect.stringContaining('Discord') }),
    ]);
    expect(provider.validate({ content: 'ok', media: [media('a', 10, 'x'.repeat(1025))] }, DISCORD_LIMITS)).toEqual([
      expect.objectContaining({ message: 'The alt text of media a has 1025 characters; Discord allows 1024' }),
    ]);
  });
});

describe('Discord options', () => {
  const validate = compileOptionsSchema('discord', DISCORD_OPTIONS_SCHEMA);
  const problems = (options: unknown) => optionsProblems(validate, options);

  it('takes a forum post title and tags, a name and avatar, and no embeds, none required', () => {
    expect(problems({})).toEqual([]);
    expect(
      problems({
        threadName: 'Release 2.0',
        username: 'Release notes',
        avatarUrl: 'https://cdn.example.com/a.png',
        suppressEmbeds: true,
        appliedTags: ['1220000000000000001'],
      }),
    ).toEqual([]);
  });

  it('names each field it refuses', () => {
    expect(problems({ avatarUrl: 'http://cdn.example.com/a.png' })).toEqual([
      { field: 'avatarUrl', message: 'must match ^https://[^\\s]+$' },
    ]);
    expect(problems({ threadName: 't'.repeat(101) })).toEqual([
      { field: 'threadName', message: 'must be at most 100 characters long' },
    ]);
    expect(problems({ appliedTags: ['1', '2', '3', '4', '5', '6'].map((n) => `12200000000000000${n}0`) })).toEqual([
      { field: 'appliedTags', message: 'must contain at most 5 items' },
    ]);
    expect(problems({ appliedTags: ['news'] })[0].field).toBe('appliedTags[0]');
  });

  it('refuses names Discord refuses for webhook messages', () => {
    const http = new OutboundHttp({ allowPrivate: false });
    try {
      const provider = new DiscordProvider(http, DISCORD_WEBHOOK_ORIGINS);
      expect(
        provider.validate({ content: 'hi', media: [], options: { username: 'Discord Bot' } }, DISCORD_LIMITS),
      ).toEqual([{ field: 'options.username', message: expect.stringContaining('"discord" or "clyde"') }]);
      expect(
        provider.validate({ content: 'hi', media: [], options: { username: 'Releases' } }, DISCORD_LIMITS),
      ).toEqual([]);
    } finally {
      void http.close();
    }
  });
});
