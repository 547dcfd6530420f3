import type { EventSchemas } from '../events/event-payloads';
import { PostAnalyticsDto } from './dto/post-analytics.dto';

declare module '../events/event-payloads' {
  interface EventPayloads {
    /** A collection read new figures for the post. */
    'analytics.updated': PostAnalyticsDto;
  }
}

/** The schemas of the events analytics emits (the composition root hands them to EventsModule). */
export const ANALYTICS_EVENT_SCHEMAS = {
  'analytics.updated': PostAnalyticsDto,
} as const satisfies Partial<EventSchemas>;
