import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ChannelsModule } from '../channels/channels.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MediaModule } from '../media/media.module';
import { PostsModule } from '../posts/posts.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { OrganizationOverviewService } from './organization-overview.service';
import { WorkspaceErasureQueue } from './workspace-erasure.queue';
import { WorkspaceErasureService } from './workspace-erasure.service';
import { WorkspaceUsageService } from './workspace-usage.service';
import { WorkspacesController } from './workspaces.controller';

/**
 * Platform mode (docs/adr/0052): the workspaces of an organization as a platform manages them
 * (/workspaces), their usage and their erasure. It owns no table: organizations and workspaces are
 * auth's; usage and erasure go through the services of the features that own the data.
 */
@Module({
  imports: [
    AuthModule,
    ChannelsModule,
    MediaModule,
    PostsModule,
    WebhooksModule,
    IdempotencyModule,
    WorkspaceErasureQueue.registration(),
  ],
  controllers: [WorkspacesController],
  providers: [WorkspaceUsageService, WorkspaceErasureService, WorkspaceErasureQueue, OrganizationOverviewService],
  exports: [WorkspaceUsageService, WorkspaceErasureService, WorkspaceErasureQueue, OrganizationOverviewService],
})
export class PlatformModule {}
