import { Module } from '@nestjs/common';
import { PostsModule } from './posts.module';
import { PublishProcessor } from './publish.processor';
import { PublishReconciler } from './publish-reconciler.service';
import { PublisherService } from './publisher.service';

/** The publishing side: loaded only where the process runs workers. */
@Module({
  imports: [PostsModule],
  providers: [PublisherService, PublishProcessor, PublishReconciler],
  exports: [PublishReconciler],
})
export class PostsWorkerModule {}
