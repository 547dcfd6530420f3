import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MEDIA_USAGE } from '../media/media-usage.port';
import { Post } from './post.entity';
import { PostMediaUsageStore } from './post-media-usage.store';

/**
 * The posts side of media's MEDIA_USAGE port, as a module of its own so MediaModule can import it
 * without importing PostsModule (which imports MediaModule).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Post])],
  providers: [{ provide: MEDIA_USAGE, useClass: PostMediaUsageStore }],
  exports: [MEDIA_USAGE],
})
export class PostMediaUsageModule {}
