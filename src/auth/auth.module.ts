import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyCache } from './api-key.cache';
import { ApiKey } from './api-key.entity';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { AuthService } from './auth.service';
import { BootstrapKeyService } from './bootstrap-key.service';
import { Workspace } from './workspace.entity';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKey, Workspace])],
  controllers: [ApiKeysController],
  providers: [
    ApiKeyCache,
    AuthService,
    ApiKeysService,
    BootstrapKeyService,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
  exports: [AuthService, ApiKeysService],
})
export class AuthModule {}
