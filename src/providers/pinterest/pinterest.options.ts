import type { JSONSchemaType } from 'ajv';
import type { OptionsSchema } from '../provider-plugin';
import { PINTEREST_MAX_LINK, PINTEREST_MAX_TITLE } from './pinterest.limits';

/** A Pinterest target's own settings (`targets[i].options`), as the adapter reads them. */
export interface PinterestOptions {
  /** Another board of the account to pin to; the channel's board (chosen at connection) when left out. */
  boardId?: string | null;
  /** A section of the board the pin goes to. */
  boardSectionId?: string | null;
  /** The pin's title (Pinterest: at most 100 characters). */
  title?: string | null;
  /** Where the pin leads when clicked (http or https, at most 2,048 characters). */
  link?: string | null;
  /** The pin's dominant color, `#RRGGBB`, shown while the image loads. */
  dominantColor?: string | null;
}

/**
 * The JSON Schema of Pinterest's options (`optionsSchema` in `GET /providers`), closed. No option is
 * required: every channel has a board, chosen at connection (one channel per board), so `boardId`
 * only sends a pin elsewhere. Alt text is the media item's own (`altText`), not an option.
 */
export const PINTEREST_OPTIONS_SCHEMA: JSONSchemaType<PinterestOptions> & OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    boardId: {
      type: 'string',
      pattern: '^[0-9]{1,32}$',
      nullable: true,
      description: "Board id to pin to instead of the channel's board (one of the account's boards)",
    },
    boardSectionId: {
      type: 'string',
      pattern: '^[0-9]{1,32}$',
      nullable: true,
      description: 'Section of the board (of boardId, or of the channel board) the pin goes to',
    },
    title: {
      type: 'string',
      minLength: 1,
      maxLength: PINTEREST_MAX_TITLE,
      nullable: true,
      description: `Pin title (at most ${PINTEREST_MAX_TITLE} characters)`,
    },
    link: {
      type: 'string',
      maxLength: PINTEREST_MAX_LINK,
      pattern: '^https?://[^\\s]+$',
      nullable: true,
      description: `Destination link of the pin (http or https, at most ${PINTEREST_MAX_LINK} characters)`,
    },
    dominantColor: {
      type: 'string',
      pattern: '^#[0-9A-Fa-f]{6}$',
      nullable: true,
      description: 'Dominant color of the pin as #RRGGBB, shown while the image loads',
    },
  },
};
