import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module';
import { publishingConfig } from '../config';
import { MediaModule } from '../media/media.module';
import { MediaService } from '../media/media.service';
import { POST_MEDIA } from './post-media.port';
import { PostTarget } from './post-target.entity';
import { Post } from './post.entity';
import { PostsController } from './posts.controller';
import { PostsService } from './posts.service';
import { PUBLISH_QUEUE, PublishQueue } from './publish.queue';

@Module({
  imports: [
    TypeOrmModule.forFeature([Post, PostTarget]),
    BullModule.registerQueueAsync({
      name: PUBLISH_QUEUE,
      inject: [publishingConfig.KEY],
      useFactory: (cfg: ConfigType<typeof publishingConfig>) => ({
        settings: { stalledInterval: cfg.stalledIntervalMs, lockDuration: cfg.stalledIntervalMs, maxStalledCount: 5 },
      }),
    }),
    ChannelsModule,
    MediaModule,
  ],
  controllers: [PostsController],
  providers: [PostsService, PublishQueue, { provide: POST_MEDIA, useExisting: MediaService }],
  exports: [PostsService, PublishQueue, POST_MEDIA, ChannelsModule],
})
export class PostsModule {}
