import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { ErrorResponseDto } from '../common/errors/error-response.dto';
import { WorkspaceId } from '../auth/workspace.decorator';
import { IdParamDto } from '../common/id-param.dto';
import { ApiPageResponse, Page } from '../common/pagination/pagination';
import { CREATE_POST_EXAMPLES, CreatePostDto } from './dto/create-post.dto';
import { ListPostsQueryDto } from './dto/list-posts.query.dto';
import { PostDto, PostValidationDto } from './dto/post.dto';
import { PostsService } from './posts.service';
import { Idempotent } from '../common/decorators/idempotent.decorator';

@ApiTags('Posts')
@Controller('posts')
export class PostsController {
  constructor(private readonly posts: PostsService) {}

  @Get()
  @ApiOperation({ summary: 'List posts', description: 'Filter by status, channel and time range; keyset-paginated.' })
  @ApiPageResponse(PostDto)
  @ApiErrors(400)
  listPosts(@WorkspaceId() workspaceId: string, @Query() query: ListPostsQueryDto): Promise<Page<PostDto>> {
    return this.posts.list(workspaceId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one post, with the outcome per channel' })
  @ApiOkResponse({ type: PostDto })
  @ApiErrors(400, 404)
  getPost(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<PostDto> {
    return this.posts.get(workspaceId, id);
  }

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a post',
    description:
      '`scheduledAt` schedules it, `publishNow: true` publishes it at once, neither makes a draft. Content and media ' +
      "are checked against every target channel's limits (400 naming the channel).",
  })
  @ApiBody({ type: CreatePostDto, examples: CREATE_POST_EXAMPLES })
  @ApiCreatedResponse({ type: PostDto })
  @ApiErrors(400)
  createPost(@WorkspaceId() workspaceId: string, @Body() body: CreatePostDto): Promise<PostDto> {
    return this.posts.create(workspaceId, body);
  }

  @Post('validate')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Check a post against its channels without saving anything' })
  @ApiBody({ type: CreatePostDto, examples: CREATE_POST_EXAMPLES })
  @ApiOkResponse({ type: PostValidationDto })
  @ApiErrors(400)
  async validatePost(@WorkspaceId() workspaceId: string, @Body() body: CreatePostDto): Promise<PostValidationDto> {
    const { problems, warnings } = await this.posts.validate(workspaceId, body);
    return { valid: problems.length === 0, problems, warnings };
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Replace a draft, scheduled or failed post',
    description:
      'Same body as create; reschedules or publishes according to it. Targets already published (of a failed ' +
      'post) are kept and not posted again. A publishing or published post answers 409.',
  })
  @ApiBody({ type: CreatePostDto, examples: CREATE_POST_EXAMPLES })
  @ApiOkResponse({ type: PostDto })
  @ApiErrors(400, 404, 409)
  updatePost(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Body() body: CreatePostDto,
  ): Promise<PostDto> {
    return this.posts.update(workspaceId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a post that was never published',
    description:
      'Deletes a draft, a scheduled post (cancelling its publication) or a failed post of which nothing was ' +
      'published. A post that reached a network keeps its record: published, or with any channel (or any part of ' +
      'a thread) published, it answers 409, as it does while publishing. Never deletes anything from the networks.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(400, 404)
  @ApiResponse({
    status: 409,
    description: 'CONFLICT: the post is publishing, or was published on at least one channel (its record is kept)',
    type: ErrorResponseDto,
    example: {
      error: 'CONFLICT',
      message:
        'This post was published (on 1 of its 2 channels): its record is kept. Deleting here never removes it from the networks.',
    },
  })
  async deletePost(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<void> {
    await this.posts.remove(workspaceId, id);
  }
}
