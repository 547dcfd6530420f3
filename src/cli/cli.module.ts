import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { CryptoModule } from '../common/crypto/crypto.module';
import { configModule } from '../config';
import { DatabaseModule } from '../database/database.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { RedisModule } from '../redis/redis.module';
import { UsersModule } from '../users/users.module';

/**
 * What the command line needs: config, the app's SecretBox (stored Idempotency-Key answers are sealed),
 * database, Redis (to broadcast revocations), auth and users. IdempotencyModule answers the @Idempotent()
 * routes of the controllers auth and users bring along (as in app.module.ts).
 */
@Module({
  imports: [configModule(), CryptoModule, DatabaseModule, RedisModule, IdempotencyModule, AuthModule, UsersModule],
})
export class CliModule {}
