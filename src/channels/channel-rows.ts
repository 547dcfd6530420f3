import { Channel } from './channel.entity';

/** Columns and mapper of the channels read on the publishing hot path (raw SQL; checked by test/database/row-mappings). */
export const CHANNEL_COLUMNS =
  'id, workspace_id, provider, external_id, name, handle, avatar_url, profile_url, status, limits, credentials, ' +
  'credentials_group, disconnect_reason, connected_at, disconnected_at, created_at, updated_at';

export function toChannel(r: Record<string, unknown>): Channel {
  return Object.assign(new Channel(), {
    id: r.id,
    workspaceId: r.workspace_id,
    provider: r.provider,
    externalId: r.external_id,
    name: r.name,
    handle: r.handle,
    avatarUrl: r.avatar_url ?? null,
    profileUrl: r.profile_url ?? null,
    status: r.status,
    limits: r.limits,
    credentials: r.credentials ?? null,
    credentialsGroup: r.credentials_group ?? null,
    disconnectReason: r.disconnect_reason ?? null,
    connectedAt: r.connected_at,
    disconnectedAt: r.disconnected_at ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
}
