import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module';
import { ChannelCredentialsService } from './channel-credentials.service';
import { OAuthAppsService } from './oauth-apps.service';
import { OAuthConnection } from './oauth-connection.entity';
import { OAuthState } from './oauth-state.entity';
import { OAuthTokenClient } from './oauth-token.client';
import { OAuthController } from './oauth.controller';
import { OAuthService } from './oauth.service';
import { OAuthStore } from './oauth.store';

/**
 * Authorization-code + PKCE connection of OAuth networks, the choice of targets when one
 * authorization reaches several accounts, and token refresh under a per-channel lock.
 */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthState, OAuthConnection]), ChannelsModule],
  controllers: [OAuthController],
  providers: [OAuthService, OAuthStore, OAuthAppsService, OAuthTokenClient, ChannelCredentialsService],
  exports: [OAuthService, OAuthAppsService, ChannelCredentialsService],
})
export class OAuthModule {}
