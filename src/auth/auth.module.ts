import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyCache } from './api-key.cache';
import { ApiKey } from './api-key.entity';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { ApiKeysStore } from './api-keys.store';
import { AuthService } from './auth.service';
import { BootstrapKeyService } from './bootstrap-key.service';
import { ScopedRoutesCheck } from './scoped-routes.check';
import { Workspace } from './workspace.entity';
import { WorkspaceController } from './workspace.controller';
import { WorkspacesService } from './workspaces.service';
import { WorkspacesStore } from './workspaces.store';

/**
 * Workspaces and API keys. Its RequestGuard (the API key, then its rate limit) is the one global guard,
 * registered by the composition root (app.module.ts).
 */
@Module({
  imports: [DiscoveryModule, TypeOrmModule.forFeature([ApiKey, Workspace])],
  controllers: [ApiKeysController, WorkspaceController],
  providers: [
    ApiKeyCache,
    ApiKeysStore,
    WorkspacesStore,
    AuthService,
    ApiKeysService,
    BootstrapKeyService,
    ApiKeyGuard,
    ScopedRoutesCheck,
    WorkspacesService,
  ],
  exports: [AuthService, ApiKeysService, ApiKeyGuard, WorkspacesService],
})
export class AuthModule {}
