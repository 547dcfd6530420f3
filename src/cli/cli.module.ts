import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AuthModule } from '../auth/auth.module';
import { allConfigs } from '../config';
import { DatabaseModule } from '../database/database.module';
import { RedisModule } from '../redis/redis.module';

/** What the command line needs: config, database, Redis (to broadcast revocations) and auth. */
@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, cache: true, load: allConfigs }),
    DatabaseModule,
    RedisModule,
    AuthModule,
  ],
})
export class CliModule {}
