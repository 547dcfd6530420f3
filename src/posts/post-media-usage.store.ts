import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { MediaUsage } from '../media/media-usage.port';
import { Post } from './post.entity';

/**
 * Answers media's MEDIA_USAGE port from the posts tables (owned here): media of the post, of its thread,
 * or of a channel's override.
 */
@Injectable()
export class PostMediaUsageStore implements MediaUsage {
  constructor(@InjectRepository(Post) private readonly posts: Repository<Post>) {}

  async isInUse(workspaceId: string, mediaId: string): Promise<boolean> {
    const found = await this.posts
      .createQueryBuilder('p')
      .select('1')
      .where('p.workspaceId = :workspaceId', { workspaceId })
      .andWhere("p.status IN ('scheduled', 'publishing')")
      // The post's own media, a thread part's (`thread @> [{"mediaIds": [id]}]`), or a channel's override.
      .andWhere(
        "(:mediaId = ANY(p.mediaIds) OR p.thread @> jsonb_build_array(jsonb_build_object('mediaIds', jsonb_build_array(CAST(:mediaId AS text))))" +
          ' OR EXISTS (SELECT 1 FROM post_targets t WHERE t.post_id = p.id AND CAST(:mediaId AS uuid) = ANY(t.media_ids_override)))',
        { mediaId },
      )
      .limit(1)
      .getRawOne<unknown>();
    return found !== undefined && found !== null;
  }
}
