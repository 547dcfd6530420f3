import { Injectable } from '@nestjs/common';
import { MediaContentService } from '../media/media-content.service';
import { MediaService } from '../media/media.service';
import type { PostDto, PostProblemDto } from '../posts/dto/post.dto';
import { PostsService } from '../posts/posts.service';
import type { MediaPreview } from './views/post-parts';

/**
 * What the console's previews of posts need: each medium with its signed URLs (the API's own, valid
 * MEDIA_URL_TTL_SECONDS), and what a post breaks of its channels' limits (the networks' own checks).
 */
@Injectable()
export class ConsolePreviewsService {
  constructor(
    private readonly media: MediaService,
    private readonly content: MediaContentService,
    private readonly posts: PostsService,
  ) {}

  /** The previews of the media of these posts (every part, every channel's override), by id. */
  async forPosts(workspaceId: string, posts: PostDto[]): Promise<Map<string, MediaPreview>> {
    const ids = posts.flatMap((p) => [
      ...p.mediaIds,
      ...p.thread.flatMap((part) => part.mediaIds),
      ...p.targets.flatMap((t) => t.mediaIds ?? []),
    ]);
    return this.forIds(workspaceId, ids);
  }

  /** Previews of the items of this workspace among `ids`; an item gone (or another's) has none. */
  async forIds(workspaceId: string, ids: Iterable<string>): Promise<Map<string, MediaPreview>> {
    const previews = new Map<string, MediaPreview>();
    for (const id of new Set(ids)) {
      const item = await this.media.get(workspaceId, id).catch(() => null);
      if (!item) continue;
      const urls = this.content.urlsOf(item);
      previews.set(id, {
        id,
        mimeType: item.mimeType,
        altText: item.altText,
        status: item.status,
        width: item.width,
        height: item.height,
        durationMs: item.durationMs,
        url: urls.contentUrl,
        posterUrl: urls.posterUrl,
      });
    }
    return previews;
  }

  /** What each post breaks of its channels' limits now, by post id. */
  async limits(workspaceId: string, posts: PostDto[]): Promise<Map<string, PostProblemDto[]>> {
    const out = new Map<string, PostProblemDto[]>();
    for (const p of posts) out.set(p.id, await this.posts.limitProblems(workspaceId, p));
    return out;
  }
}
