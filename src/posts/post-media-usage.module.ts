import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Post } from './post.entity';
import { PostMediaUsageStore } from './post-media-usage.store';

/**
 * The posts side of media's MEDIA_USAGE port, as a module of its own: the composition root binds it
 * to the port without loading PostsModule (which imports MediaModule) into the binding.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Post])],
  providers: [PostMediaUsageStore],
  exports: [PostMediaUsageStore],
})
export class PostMediaUsageModule {}
