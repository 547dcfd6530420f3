import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';
import type { Problem } from '../social-provider.interface';

/** A Slack target's own settings (`targets[i].options`), as the adapter reads them. */
export interface SlackOptions {
  /** Unfurl links of the text (`unfurl_links`); Slack's default for bots: on. */
  unfurlLinks?: boolean | null;
  /** Unfurl media links of the text (`unfurl_media`); Slack's default: on. */
  unfurlMedia?: boolean | null;
  /** The `ts` of a message of the channel to reply to, in its thread (`thread_ts`). */
  threadTs?: string | null;
  /** A thread reply also shown in the channel (`reply_broadcast`); needs `threadTs`. */
  replyBroadcast?: boolean | null;
}

/** A message's `ts`: seconds, a dot, six digits. */
export const SLACK_TS = '^[0-9]{9,11}\\.[0-9]{6}$';

/**
 * The JSON Schema of Slack's options (`optionsSchema` in `GET /providers`), closed; none required.
 * `replyBroadcast` needs `threadTs` (the schema says so, naming `threadTs`).
 */
export const SLACK_OPTIONS_SCHEMA: JSONSchemaType<SlackOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    unfurlLinks: {
      type: 'boolean',
      nullable: true,
      description: 'Unfurl (preview) the links of the text; default true. Messages with files are not unfurled.',
    },
    unfurlMedia: {
      type: 'boolean',
      nullable: true,
      description: 'Unfurl (preview) media links of the text; default true',
    },
    threadTs: {
      type: 'string',
      pattern: SLACK_TS,
      nullable: true,
      description: "ts of a channel message to reply to in its thread (the thread's first message, not a reply)",
    },
    replyBroadcast: {
      type: 'boolean',
      nullable: true,
      description: 'Also show the thread reply in the channel (needs threadTs; text messages only)',
    },
  },
  if: { properties: { replyBroadcast: { const: true } }, required: ['replyBroadcast'] },
  then: { properties: { threadTs: {} }, required: ['threadTs'] },
};

/** What the schema cannot say: Slack shares files into a thread without a broadcast. */
export function slackOptionProblems(options: Record<string, unknown> | undefined, mediaCount: number): Problem[] {
  if (options?.replyBroadcast === true && mediaCount > 0) {
    return [
      {
        field: 'options.replyBroadcast',
        message: 'Slack shares files into a thread without broadcasting them to the channel: leave it out with media',
      },
    ];
  }
  return [];
}
