import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { redisConfig } from '../config';
import { redisOptions } from '../redis/redis.module';

/**
 * Bull wired once: connection from REDIS_URL, every queue under `<REDIS_PREFIX>:bull`.
 * Feature modules register their own queues with BullModule.registerQueue.
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
  exports: [BullModule],
})
export class QueueModule {}
