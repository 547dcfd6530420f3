import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/analytics.module';
import { AuthModule } from '../auth/auth.module';
import { ChannelsModule } from '../channels/channels.module';
import { MediaModule } from '../media/media.module';
import { PostsModule } from '../posts/posts.module';
import { ProvidersModule } from '../providers/providers.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { McpController } from './mcp.controller';
import { McpToolHandlers } from './mcp-tool-handlers';
import { McpService } from './mcp.service';
import { ProtectedResourceController } from './protected-resource.controller';

/**
 * The MCP server (docs/adr/0037): tools that adapt the services of the REST API, behind the same
 * key lookup, rate limit, idempotency store and validation. Owns no table.
 */
@Module({
  imports: [AuthModule, RateLimitModule, ProvidersModule, ChannelsModule, PostsModule, MediaModule, AnalyticsModule],
  controllers: [McpController, ProtectedResourceController],
  providers: [McpService, McpToolHandlers],
  exports: [McpService],
})
export class McpModule {}
