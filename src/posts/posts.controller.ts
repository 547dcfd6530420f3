import { RequiredScope } from '../auth/scope.decorator';
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
import { KeyActor, WorkspaceId } from '../auth/workspace.decorator';
import type { Actor } from '../auth/scopes.format';
import { RejectPostDto } from './dto/reject-post.dto';
import { EmptyBodyDto } from '../common/empty-body.dto';
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
  @RequiredScope('posts:read')
  @ApiOperation({ summary: 'List posts', description: 'Filter by status, channel and time range; keyset-paginated.' })
  @ApiPageResponse(PostDto)
  @ApiErrors(400)
  listPosts(@WorkspaceId() workspaceId: string, @Query() query: ListPostsQueryDto): Promise<Page<PostDto>> {
    return this.posts.list(workspaceId, query);
  }

  @Get(':id')
  @RequiredScope('posts:read')
  @ApiOperation({ summary: 'Get one post, with the outcome per channel' })
  @ApiOkResponse({ type: PostDto })
  @ApiErrors(400, 404)
  getPost(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<PostDto> {
    return this.posts.get(workspaceId, id);
  }

  @Post()
  @RequiredScope('posts:write')
  @Idempotent()
  @ApiOperation({
    summary: 'Create a post',
    description:
      '`scheduledAt` schedules it, `publishNow: true` publishes it at once, neither makes a draft. Content and media ' +
      "are checked against every target channel's limits (400 naming the channel). A post that would go out waits " +
      'in `pending_approval` (nothing is published) when the key lacks `posts:publish` or the workspace requires ' +
      'approval; POST /posts/{id}/approve sends it on.',
  })
  @ApiBody({ type: CreatePostDto, examples: CREATE_POST_EXAMPLES })
  @ApiCreatedResponse({ type: PostDto })
  @ApiErrors(400)
  createPost(@KeyActor() actor: Actor, @Body() body: CreatePostDto): Promise<PostDto> {
    return this.posts.create(actor, body);
  }

  @Post('validate')
  @RequiredScope('posts:write')
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
  @RequiredScope('posts:write')
  @ApiOperation({
    summary: 'Replace a draft, pending, scheduled or failed post',
    description:
      'Same body as create; reschedules or publishes according to it. A post pending approval stays pending; an ' +
      'edit by a key without `posts:publish` (or in a workspace that requires approval) that keeps it going out sends it ' +
      'back to `pending_approval`. Targets already published (of a failed ' +
      'post) are kept and not posted again. A publishing or published post answers 409.',
  })
  @ApiBody({ type: CreatePostDto, examples: CREATE_POST_EXAMPLES })
  @ApiOkResponse({ type: PostDto })
  @ApiErrors(400, 404, 409)
  updatePost(@KeyActor() actor: Actor, @Param() { id }: IdParamDto, @Body() body: CreatePostDto): Promise<PostDto> {
    return this.posts.update(actor, id, body);
  }

  @Post(':id/approve')
  @RequiredScope('posts:approve')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approve a post pending approval',
    description:
      'Schedules it at its time, or publishes it now (publishNow, or a time that has passed: `approval.latenessSeconds` ' +
      'says by how much). A post that is not pending approval answers 409; of two concurrent approvals or an approval ' +
      'and a rejection, one wins and the other answers 409.',
  })
  @ApiBody({ type: EmptyBodyDto, required: false })
  @ApiOkResponse({ type: PostDto })
  @ApiErrors(400, 404, 409)
  approvePost(@KeyActor() actor: Actor, @Param() { id }: IdParamDto, @Body() _body: EmptyBodyDto): Promise<PostDto> {
    return this.posts.approve(actor, id);
  }

  @Post(':id/reject')
  @RequiredScope('posts:approve')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Reject a post pending approval',
    description: 'The post becomes a draft again with `rejection {reason, at, by}`. Not pending approval: 409.',
  })
  @ApiOkResponse({ type: PostDto })
  @ApiErrors(400, 404, 409)
  rejectPost(@KeyActor() actor: Actor, @Param() { id }: IdParamDto, @Body() body: RejectPostDto): Promise<PostDto> {
    return this.posts.reject(actor, id, body.reason);
  }

  @Delete(':id')
  @RequiredScope('posts:write')
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
