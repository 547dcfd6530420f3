import type { EventSchemas } from '../events/event-payloads';
import { PostDto } from './dto/post.dto';

declare module '../events/event-payloads' {
  interface EventPayloads {
    /** Every target of a publication is published. */
    'post.published': PostDto;
    /** A publication ended with a failed target. */
    'post.failed': PostDto;
    /** A post that would go out waits for an approval (status `pending_approval`). */
    'post.approval_requested': PostDto;
    /** A post pending approval was approved: it is scheduled, or publishing. */
    'post.approved': PostDto;
    /** A post pending approval was rejected: it is a draft again, with `rejection`. */
    'post.rejected': PostDto;
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
  'post.approval_requested': PostDto,
  'post.approved': PostDto,
  'post.rejected': PostDto,
  'post.first_comment_failed': PostDto,
} as const satisfies Partial<EventSchemas>;
