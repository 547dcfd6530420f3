import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { parseWithSchema } from '../credentials-schema';

/**
 * Telegram: a bot's token (from @BotFather) and the chat it posts to. The bot must be an
 * administrator allowed to post messages in a channel, or a member allowed to send messages in a group.
 */
export class TelegramCredentialsDto {
  /** The bot token @BotFather gave, `<bot id>:<secret>`. */
  @ApiProperty({ example: '123456789:AAExampleExampleExampleExampleExample' })
  @IsString()
  @Matches(/^\d{1,20}:[A-Za-z0-9_-]{30,100}$/, {
    message: 'must be a bot token as @BotFather gives it (<id>:<secret>)',
  })
  botToken!: string;

  /** The chat: its numeric id (channels and supergroups start with -100) or a public channel's @username. */
  @ApiProperty({ example: '@my_channel' })
  @IsString()
  @Matches(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, {
    message: 'must be a numeric chat id (e.g. -1001234567890) or a public @username',
  })
  chatId!: string;
}

export interface TelegramCredentials {
  botToken: string;
  /** As given at connection; stored credentials hold the numeric id Telegram answered. */
  chatId: string;
  /** The chat's public @username (without @), when it has one: message links are t.me/<username>/<id>. */
  chatUsername: string | null;
  /** `channel`, `supergroup`, `group` or `private`. */
  chatType: string | null;
}

/** Validates Telegram credentials (given or stored) against TelegramCredentialsDto; throws InvalidCredentialsError. */
export function parseTelegramCredentials(raw: unknown): TelegramCredentials {
  const obj = parseWithSchema(TelegramCredentialsDto, raw, 'Telegram credentials');
  return {
    botToken: (obj.botToken as string).trim(),
    chatId: (obj.chatId as string).trim(),
    chatUsername: typeof obj.chatUsername === 'string' ? obj.chatUsername : null,
    chatType: typeof obj.chatType === 'string' ? obj.chatType : null,
  };
}
