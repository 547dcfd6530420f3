import type { EventSchemas } from '../events/event-payloads';
import { WorkspaceDeletedDto } from './dto/workspaces.dto';

declare module '../events/event-payloads' {
  interface EventPayloads {
    /**
     * A workspace of the organization was erased (docs/adr/0052). Recorded in each other workspace of
     * the organization that has a webhook subscribed to it, once the erasure is done.
     */
    'workspace.deleted': WorkspaceDeletedDto;
  }
}

/** The schemas of the events platform emits (the composition root hands them to EventsModule). */
export const PLATFORM_EVENT_SCHEMAS = {
  'workspace.deleted': WorkspaceDeletedDto,
} as const satisfies Partial<EventSchemas>;
