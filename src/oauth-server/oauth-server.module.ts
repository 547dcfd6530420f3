import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { OAuthAuthorizationCode } from './oauth-authorization-code.entity';
import { OAuthClient } from './oauth-client.entity';
import { OAuthGrant } from './oauth-grant.entity';
import { OAuthServerController } from './oauth-server.controller';
import { OAuthServerService } from './oauth-server.service';
import { OAuthServerStore } from './oauth-server.store';
import { OAuthToken } from './oauth-token.entity';

/**
 * The OAuth 2.1 authorization server of remote MCP agents (docs/adr/0043): owns the clients, codes,
 * grants and tokens. Not to be confused with oauth/, which is the OAuth *client* that connects
 * channels to the networks. The consent page and the list of authorized agents are console pages.
 */
@Module({
  imports: [AuthModule, TypeOrmModule.forFeature([OAuthClient, OAuthAuthorizationCode, OAuthGrant, OAuthToken])],
  controllers: [OAuthServerController],
  providers: [OAuthServerStore, OAuthServerService],
  exports: [OAuthServerService],
})
export class OAuthServerModule {}
