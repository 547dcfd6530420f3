import { Module } from '@nestjs/common';
import { FirstCommentProcessor } from './first-comment.processor';
import { FirstCommentService } from './first-comment.service';
import { PostsModule } from './posts.module';
import { PublishProcessor } from './publish.processor';
import { PublishReconcileJob } from './publish-reconcile.job';
import { PublisherService } from './publisher.service';

/** The publishing side: loaded only where the process runs workers. */
@Module({
  imports: [PostsModule],
  providers: [PublisherService, PublishProcessor, PublishReconcileJob, FirstCommentService, FirstCommentProcessor],
  exports: [PublishReconcileJob],
})
export class PostsWorkerModule {}
