import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module';
import { ChannelCredentialsService } from './channel-credentials.service';
import { OAuthAppsService } from './oauth-apps.service';
import { OAuthState } from './oauth-state.entity';
import { OAuthTokenClient } from './oauth-token.client';
import { OAuthController } from './oauth.controller';
import { OAuthService } from './oauth.service';

/** Authorization-code + PKCE connection of OAuth networks, and token refresh under a per-channel lock. */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthState]), ChannelsModule],
  controllers: [OAuthController],
  providers: [OAuthService, OAuthAppsService, OAuthTokenClient, ChannelCredentialsService],
  exports: [OAuthAppsService, ChannelCredentialsService],
})
export class OAuthModule {}
