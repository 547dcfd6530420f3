import { Injectable, ValidationPipe } from '@nestjs/common';
import { AnalyticsService } from '../analytics/analytics.service';
import { PostIdParamDto } from '../analytics/dto/analytics-params.dto';
import { ChannelDto } from '../channels/dto/channel.dto';
import { ListChannelsQueryDto } from '../channels/dto/list-channels.query.dto';
import { ChannelsService } from '../channels/channels.service';
import { IdParamDto } from '../common/id-param.dto';
import { createValidationPipe } from '../common/validation.pipe';
import { ListEventsQueryDto } from '../events/dto/list-events.query.dto';
import { EventDto } from '../events/dto/event.dto';
import { EventsService } from '../events/events.service';
import { MediaDto } from '../media/dto/media.dto';
import { UploadFromUrlDto } from '../media/dto/upload-from-url.dto';
import { MediaContentService } from '../media/media-content.service';
import type { MediaItem } from '../media/media-item.entity';
import { MediaService } from '../media/media.service';
import { MediaUrlImportService } from '../media/media-url-import.service';
import { CreatePostDto } from '../posts/dto/create-post.dto';
import { ListPostsQueryDto } from '../posts/dto/list-posts.query.dto';
import { PostsService } from '../posts/posts.service';
import { ProvidersService } from '../providers/providers.service';
import type { Actor } from '../auth/scopes.format';
import type { McpToolName } from './mcp-tools';
import type { SplitArguments } from './tool-schemas';

/** One tool call, its arguments already split into the API call's parts (tool-schemas.ts). */
export interface ToolCall {
  /** The caller, as services that decide by scope take it (create and update: approval). */
  actor: Actor;
  args: SplitArguments;
}

/** The API's JSON answer of a tool and the HTTP status REST would have answered. */
export interface ToolAnswer {
  status: number;
  body: unknown;
}

type Handler = (call: ToolCall) => Promise<ToolAnswer>;

const ok = (body: unknown): ToolAnswer => ({ status: 200, body });

/**
 * The tools as thin adapters over the services the REST controllers call, each doing what its
 * controller does: the same DTOs checked by the same validation pipe (so a tool error carries the
 * API's message), the same service call, the same JSON out.
 */
@Injectable()
export class McpToolHandlers {
  private readonly pipe: ValidationPipe = createValidationPipe();
  private readonly handlers: Record<McpToolName, Handler>;

  constructor(
    providers: ProvidersService,
    channels: ChannelsService,
    posts: PostsService,
    media: MediaService,
    mediaContent: MediaContentService,
    urlImport: MediaUrlImportService,
    analytics: AnalyticsService,
    events: EventsService,
  ) {
    // What the media controller answers: a ready item with its signed URLs (contentUrl, posterUrl).
    const mediaDto = (item: MediaItem) => MediaDto.from(item, mediaContent.urlsOf(item));
    this.handlers = {
      list_providers: async () => ok({ data: providers.list() }),
      list_channels: async ({ actor: { workspaceId }, args }) => {
        const page = await channels.list(workspaceId, await this.fromQuery(ListChannelsQueryDto, args));
        return ok({ data: page.data.map((c) => ChannelDto.from(c)), nextCursor: page.nextCursor });
      },
      validate_post: async ({ actor: { workspaceId }, args }) => {
        const { problems, warnings } = await posts.validate(workspaceId, await this.fromBody(CreatePostDto, args));
        return ok({ valid: problems.length === 0, problems, warnings });
      },
      create_post: async ({ actor, args }) => ({
        status: 201,
        body: await posts.create(actor, await this.fromBody(CreatePostDto, args)),
      }),
      get_post: async ({ actor: { workspaceId }, args }) => {
        const { id } = await this.fromPath(IdParamDto, args);
        return ok(await posts.get(workspaceId, id));
      },
      list_posts: async ({ actor: { workspaceId }, args }) =>
        ok(await posts.list(workspaceId, await this.fromQuery(ListPostsQueryDto, args))),
      update_post: async ({ actor, args }) => {
        const { id } = await this.fromPath(IdParamDto, args);
        return ok(await posts.update(actor, id, await this.fromBody(CreatePostDto, args)));
      },
      delete_post: async ({ actor: { workspaceId }, args }) => {
        const { id } = await this.fromPath(IdParamDto, args);
        await posts.remove(workspaceId, id);
        return { status: 204, body: { id, deleted: true } };
      },
      upload_media_from_url: async ({ actor: { workspaceId }, args }) => {
        const { item, accepted } = await urlImport.importFromUrl(
          workspaceId,
          await this.fromBody(UploadFromUrlDto, args),
        );
        return { status: accepted ? 202 : 201, body: mediaDto(item) };
      },
      get_media: async ({ actor: { workspaceId }, args }) => {
        const { id } = await this.fromPath(IdParamDto, args);
        return ok(mediaDto(await media.get(workspaceId, id)));
      },
      get_post_analytics: async ({ actor: { workspaceId }, args }) => {
        const { postId } = await this.fromPath(PostIdParamDto, args);
        return ok(await analytics.getPostAnalytics(workspaceId, postId));
      },
      list_events: async ({ actor: { workspaceId }, args }) => {
        const page = await events.list(workspaceId, await this.fromQuery(ListEventsQueryDto, args));
        return ok({ data: page.data.map((e) => EventDto.from(e)), nextCursor: page.nextCursor });
      },
    };
  }

  run(name: McpToolName, call: ToolCall): Promise<ToolAnswer> {
    return this.handlers[name](call);
  }

  private check<T>(metatype: new () => T, type: 'body' | 'query' | 'param', value: unknown): Promise<T> {
    return this.pipe.transform(value, { type, metatype, data: undefined }) as Promise<T>;
  }

  private fromBody<T>(metatype: new () => T, args: SplitArguments): Promise<T> {
    return this.check(metatype, 'body', args.body ?? {});
  }

  private fromQuery<T>(metatype: new () => T, args: SplitArguments): Promise<T> {
    return this.check(metatype, 'query', args.query);
  }

  private fromPath<T>(metatype: new () => T, args: SplitArguments): Promise<T> {
    return this.check(metatype, 'param', args.path);
  }
}
