import { DiscordCredentialsDto } from '../providers/discord/discord.credentials';
import { TelegramCredentialsDto } from '../providers/telegram/telegram.credentials';
import { credentialFields } from './credential-fields';

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
