import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyCache } from './api-key.cache';
import { ApiKey } from './api-key.entity';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { ApiKeysStore } from './api-keys.store';
import { AuthService } from './auth.service';
import { BootstrapKeyService } from './bootstrap-key.service';
import { Workspace } from './workspace.entity';
import { WorkspacesStore } from './workspaces.store';

/**
 * Workspaces and API keys. Its RequestGuard (the API key, then its rate limit) is the one global guard,
 * registered by the composition root (app.module.ts).
 */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKey, Workspace])],
  controllers: [ApiKeysController],
  providers: [
    ApiKeyCache,
    ApiKeysStore,
    WorkspacesStore,
    AuthService,
    ApiKeysService,
    BootstrapKeyService,
    ApiKeyGuard,
  ],
  exports: [AuthService, ApiKeysService, ApiKeyGuard],
})
export class AuthModule {}
