import { Injectable, Logger } from '@nestjs/common';
import { WorkspacesService } from '../auth/workspaces.service';
import type { Workspace } from '../auth/workspace.entity';
import { ChannelsService, REVOKE_TIMEOUT_MS } from '../channels/channels.service';
import { Transactions } from '../database/transactions';
import { EventsService } from '../events/events.service';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { MediaService } from '../media/media.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { WorkspaceErasureQueue } from './workspace-erasure.queue';

/**
 * Erasing a workspace (docs/adr/0052). `request` marks it erased and revokes its keys before the API
 * answers 202; `erase` (the job, any number of times: each step is idempotent and starts from what the
 * database still holds) then removes what has effects outside the database first, each through its
 * owner: the channels' authorizations at the networks, the media bytes on disk or S3, the answers stored
 * for requests that acted in the workspace; then the workspace's row, with which every row naming the
 * workspace (and every row hanging off those) goes by ON DELETE CASCADE; and last records
 * `workspace.deleted` for the organization's webhooks.
 */
@Injectable()
export class WorkspaceErasureService {
  private readonly logger = new Logger('WorkspaceErasure');

  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly channels: ChannelsService,
    private readonly media: MediaService,
    private readonly idempotency: IdempotencyService,
    private readonly webhooks: WebhooksService,
    private readonly events: EventsService,
    private readonly transactions: Transactions,
    private readonly queue: WorkspaceErasureQueue,
  ) {}

  /** DELETE /workspaces/{id}: 404 from now on, keys refused at once, the rest in the background. */
  async request(organizationId: string, id: string): Promise<Workspace> {
    const workspace = await this.workspaces.markErased(organizationId, id);
    await this.queue.enqueue(id);
    return workspace;
  }

  /** Enqueues every erasure the database says is unfinished (the reconciler); returns how many. */
  async enqueueUnfinished(): Promise<number> {
    const ids = await this.workspaces.erasing();
    for (const id of ids) await this.queue.enqueue(id);
    return ids.length;
  }

  /** Runs (or resumes) the erasure of a workspace marked erased; a no-op when it is finished. */
  async erase(workspaceId: string): Promise<void> {
    const workspace = await this.workspaces.findErasing(workspaceId);
    if (!workspace) return;
    // Again, in case the request's own revocation reached the database but not every cache.
    await this.workspaces.revokeKeys(workspaceId);
    const channels = await this.channels.eraseWorkspace(workspaceId, REVOKE_TIMEOUT_MS);
    const media = await this.media.eraseWorkspace(workspaceId);
    const answers = await this.idempotency.forgetActingIn(workspaceId);
    const siblings = (await this.workspaces.allOfOrganization(workspace.organizationId)).map((w) => w.id);
    const recipients = await this.webhooks.workspacesSubscribedTo(siblings, 'workspace.deleted');
    await this.transactions.run(async (em) => {
      for (const recipient of recipients) {
        await this.events.record(em, {
          type: 'workspace.deleted',
          workspaceId: recipient,
          data: { workspaceId },
        });
      }
      await this.workspaces.deleteErased(workspaceId, em);
    });
    this.logger.log({ msg: 'Workspace erased', workspaceId, channels, media, answers, notified: recipients.length });
  }
}
