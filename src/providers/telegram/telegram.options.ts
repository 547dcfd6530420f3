import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';

/** A Telegram target's own settings (`targets[i].options`), as the adapter reads them. */
export interface TelegramOptions {
  /** Sent silently: members get a notification without sound (`disable_notification`). */
  disableNotification?: boolean | null;
  /** Members cannot forward or save it (`protect_content`). */
  protectContent?: boolean | null;
  /** No preview of the first link in a text message (`link_preview_options.is_disabled`). */
  disableLinkPreview?: boolean | null;
  /** The forum topic of a supergroup it goes to (`message_thread_id`). */
  messageThreadId?: number | null;
}

/** The JSON Schema of Telegram's options (`optionsSchema` in `GET /providers`), closed; none required. */
export const TELEGRAM_OPTIONS_SCHEMA: JSONSchemaType<TelegramOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    disableNotification: {
      type: 'boolean',
      nullable: true,
      description: 'Send silently: members get a notification without sound',
    },
    protectContent: {
      type: 'boolean',
      nullable: true,
      description: 'Protect the message from forwarding and saving',
    },
    disableLinkPreview: {
      type: 'boolean',
      nullable: true,
      description: 'Show no preview of the first link of a text message (messages with media show none anyway)',
    },
    messageThreadId: {
      type: 'integer',
      minimum: 1,
      nullable: true,
      description: 'Forum topic (message thread) of a supergroup with topics to post in',
    },
  },
};
