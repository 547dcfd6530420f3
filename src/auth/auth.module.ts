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
import { Organization } from './organization.entity';
import { OrganizationsService } from './organizations.service';
import { OrganizationsStore } from './organizations.store';
import { Workspace } from './workspace.entity';
import { WorkspaceController } from './workspace.controller';
import { WorkspacesService } from './workspaces.service';
import { WorkspacesStore } from './workspaces.store';

/**
 * Organizations, workspaces and API keys. Its RequestGuard (the API key, then its rate limit) is the one global guard,
 * registered by the composition root (app.module.ts).
 */
@Module({
  imports: [DiscoveryModule, TypeOrmModule.forFeature([ApiKey, Workspace, Organization])],
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
    OrganizationsStore,
    OrganizationsService,
  ],
  exports: [AuthService, ApiKeysService, ApiKeyGuard, WorkspacesService, OrganizationsService],
})
export class AuthModule {}
