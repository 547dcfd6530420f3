import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { ChannelsModule } from '../channels/channels.module';
import { OAuthModule } from '../oauth/oauth.module';
import { MediaModule } from '../media/media.module';
import { MediaService } from '../media/media.service';
import { FirstCommentQueue } from './first-comment.queue';
import { FirstCommentsStore } from './first-comments.store';
import { POST_MEDIA } from './post-media.port';
import { PostTargetCheckpoint } from './post-target-checkpoint.entity';
import { PostTargetCheckpointsStore } from './post-target-checkpoints.store';
import { PostTargetPart } from './post-target-part.entity';
import { PostTargetPartsStore } from './post-target-parts.store';
import { PostTarget } from './post-target.entity';
import { Post } from './post.entity';
import { PostsController } from './posts.controller';
import { PostsService } from './posts.service';
import { PostingSchedulesModule } from '../posting-schedules/posting-schedules.module';
import { PostQueueingService } from './post-queueing.service';
import { PostSlotOccupancyModule } from './post-slot-occupancy.module';
import { PostsStore } from './posts.store';
import { PublishQueue } from './publish.queue';
import { PublishedTargetsStore } from './published-targets.store';
import { PublishingStore } from './publishing.store';

@Module({
  imports: [
    TypeOrmModule.forFeature([Post, PostTarget, PostTargetPart, PostTargetCheckpoint]),
    PublishQueue.registration(),
    AuthModule,
    FirstCommentQueue.registration(),
    ChannelsModule,
    OAuthModule,
    MediaModule,
    PostingSchedulesModule,
    PostSlotOccupancyModule,
  ],
  controllers: [PostsController],
  providers: [
    PostsService,
    PostsStore,
    PublishingStore,
    PublishQueue,
    FirstCommentQueue,
    FirstCommentsStore,
    PublishedTargetsStore,
    PostTargetPartsStore,
    PostTargetCheckpointsStore,
    PostQueueingService,
    { provide: POST_MEDIA, useExisting: MediaService },
  ],
  exports: [
    PostsService,
    PostsStore,
    PublishingStore,
    PublishQueue,
    FirstCommentQueue,
    FirstCommentsStore,
    PublishedTargetsStore,
    PostTargetPartsStore,
    PostTargetCheckpointsStore,
    POST_MEDIA,
    ChannelsModule,
    OAuthModule,
  ],
})
export class PostsModule {}
