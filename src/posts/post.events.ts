import type { EventSchemas } from '../events/event-payloads';
import { PostDto } from './dto/post.dto';

declare module '../events/event-payloads' {
  interface EventPayloads {
    /** Every target of a publication is published. */
    'post.published': PostDto;
    /** A publication ended with a failed target. */
    'post.failed': PostDto;
    /**
     * A published post's first comment failed for good on one of its channels (the post stays
     * published; its target's `firstComment` says why).
     */
    'post.first_comment_failed': PostDto;
  }
}

/** The schemas of the events posts emits (the composition root hands them to EventsModule). */
export const POST_EVENT_SCHEMAS = {
  'post.published': PostDto,
  'post.failed': PostDto,
  'post.first_comment_failed': PostDto,
} as const satisfies Partial<EventSchemas>;
