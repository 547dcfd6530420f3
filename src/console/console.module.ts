import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/analytics.module';
import { AuthModule } from '../auth/auth.module';
import { ChannelsModule } from '../channels/channels.module';
import { ConnectLinksModule } from '../connect-links/connect-links.module';
import { ProvidersModule } from '../providers/providers.module';
import { MediaModule } from '../media/media.module';
import { OAuthModule } from '../oauth/oauth.module';
import { PostingSchedulesModule } from '../posting-schedules/posting-schedules.module';
import { PostsModule } from '../posts/posts.module';
import { SandboxModule } from '../sandbox/sandbox.module';
import { UsersModule } from '../users/users.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { OAuthServerModule } from '../oauth-server/oauth-server.module';
import { PlatformModule } from '../platform/platform.module';
import { ConsoleOrganizationController } from './console-organization.controller';
import { ConsoleAgentsController } from './console-agents.controller';
import { ConsoleApprovalsController } from './console-approvals.controller';
import { ConsoleAuthController } from './console-auth.controller';
import { ConsoleAnalyticsController } from './console-analytics.controller';
import { ConsoleCalendarController } from './console-calendar.controller';
import { ConsoleChannelsController } from './console-channels.controller';
import { ConsoleConnectLinksController } from './console-connect-links.controller';
import { ConnectPageController } from './connect-page.controller';
import { ConnectPageLimiter } from './connect-page-limiter.service';
import { ConsoleComposerController } from './console-composer.controller';
import { ConsoleMediaController } from './console-media.controller';
import { ConsoleCsrfService } from './console-csrf.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { ConsoleKeysController } from './console-keys.controller';
import { ConsoleMembersController } from './console-members.controller';
import { ConsolePagesService } from './console-pages.service';
import { ConsolePostsController } from './console-posts.controller';
import { ConsolePreviewsService } from './console-previews.service';
import { ConsoleSchedulesController } from './console-schedules.controller';
import { ConsoleWebhooksController } from './console-webhooks.controller';

/**
 * The account console under /console: server-rendered pages over the same services as the API
 * (docs/adr/0014-console-server-rendered.md). No business logic and no repositories here.
 */
@Module({
  imports: [
    UsersModule,
    AuthModule,
    ChannelsModule,
    ConnectLinksModule,
    ProvidersModule,
    OAuthModule,
    WebhooksModule,
    PostsModule,
    MediaModule,
    PostingSchedulesModule,
    SandboxModule,
    OAuthServerModule,
    PlatformModule,
    AnalyticsModule,
  ],
  controllers: [
    ConsoleKeysController,
    ConsoleAgentsController,
    ConsoleChannelsController,
    ConsoleConnectLinksController,
    ConnectPageController,
    ConsoleWebhooksController,
    ConsoleComposerController,
    ConsoleCalendarController,
    ConsoleAnalyticsController,
    ConsoleMediaController,
    ConsolePostsController,
    ConsoleApprovalsController,
    ConsoleSchedulesController,
    ConsoleMembersController,
    ConsoleOrganizationController,
    ConsoleAuthController,
  ],
  providers: [
    ConsoleCsrfService,
    ConsolePagesService,
    ConsolePreviewsService,
    ConsoleGuard,
    ConsoleExceptionFilter,
    ConnectPageLimiter,
  ],
})
export class ConsoleModule {}
