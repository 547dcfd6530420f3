import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { redisConfig } from '../config';
import { redisOptions } from '../redis/redis.module';
import { ShutdownDeadline } from './shutdown-deadline';

/**
 * Bull wired once: connection from REDIS_URL, every queue under `<REDIS_PREFIX>:bull`.
 * Feature modules register their own queues with BullModule.registerQueue. Also provides the one
 * SIGTERM drain budget (ShutdownDeadline) that processors and the periodic jobs share.
 */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [redisConfig.KEY],
      useFactory: (cfg: ConfigType<typeof redisConfig>) => ({
        redis: { ...redisOptions(cfg), maxRetriesPerRequest: null, enableReadyCheck: false },
        prefix: `${cfg.prefix}:bull`,
        defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
      }),
    }),
  ],
  providers: [ShutdownDeadline],
  exports: [BullModule, ShutdownDeadline],
})
export class QueueModule {}
