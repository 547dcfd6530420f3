import type { EventSchemas } from '../events/event-payloads';
import { MediaDto } from './dto/media.dto';

declare module '../events/event-payloads' {
  interface EventPayloads {
    /** An upload from a URL that went on in the background is ready. */
    'media.ready': MediaDto;
    /** An upload from a URL that went on in the background failed; `data.error` says why. */
    'media.failed': MediaDto;
  }
}

/** The schemas of the events media emits (the composition root hands them to EventsModule). */
export const MEDIA_EVENT_SCHEMAS = {
  'media.ready': MediaDto,
  'media.failed': MediaDto,
} as const satisfies Partial<EventSchemas>;
