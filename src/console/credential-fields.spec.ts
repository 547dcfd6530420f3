import { DiscordCredentialsDto } from '../providers/discord/discord.credentials';
import { TelegramCredentialsDto } from '../providers/telegram/telegram.credentials';
import { LemmyCredentialsDto } from '../providers/lemmy/lemmy.credentials';
import { NostrCredentialsDto } from '../providers/nostr/nostr.credentials';
import { WordpressCredentialsDto } from '../providers/wordpress/wordpress.credentials';
import { credentialFields, credentialValue } from './credential-fields';

describe('credentialFields', () => {
  it('masks secrets: fields named as tokens, and fields the schema formats as passwords (a webhook URL)', () => {
    expect(credentialFields(TelegramCredentialsDto).map((f) => [f.name, f.type])).toEqual([
      ['botToken', 'password'],
      ['chatId', 'text'],
    ]);
    expect(credentialFields(DiscordCredentialsDto)).toEqual([
      expect.objectContaining({ name: 'webhookUrl', type: 'password', required: true }),
    ]);
  });
});

describe('credential forms of the networks connected with credentials in round 4', () => {
  it('asks Nostr for a masked key and a list of relays, split on spaces, commas and new lines', () => {
    const fields = credentialFields(NostrCredentialsDto);
    expect(fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ['privateKey', 'password', true],
      ['relays', 'list', true],
    ]);
    expect(credentialValue(fields[1], 'wss://a.example\nwss://b.example, wss://c.example')).toEqual([
      'wss://a.example',
      'wss://b.example',
      'wss://c.example',
    ]);
  });

  it('asks WordPress for the application password masked, and Lemmy for its instance and a login or a token (each optional alone)', () => {
    expect(credentialFields(WordpressCredentialsDto).map((f) => [f.name, f.type, f.required])).toEqual([
      ['siteUrl', 'text', true],
      ['username', 'text', true],
      ['applicationPassword', 'password', true],
    ]);
    expect(credentialFields(LemmyCredentialsDto).map((f) => [f.name, f.type, f.required])).toEqual([
      ['instanceUrl', 'text', true],
      ['username', 'text', false],
      ['password', 'password', false],
      ['jwt', 'password', false],
    ]);
  });
});
