import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Actor, assertScope, holdsScope } from '../auth/scopes.format';
import { WorkspacesService } from '../auth/workspaces.service';
import { Channel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { AppError, ErrorDetail } from '../common/errors';
import { Page } from '../common/pagination/pagination';
import { isUuid } from '../common/validators';
import { afterCommit } from '../database/request-transaction';
import { EventsService } from '../events/events.service';
import { Transactions } from '../database/transactions';
import { ProviderRegistry } from '../providers/provider.registry';
import { CreatePostDto } from './dto/create-post.dto';
import { ListPostsQueryDto } from './dto/list-posts.query.dto';
import { PostDto, PostProblemDto } from './dto/post.dto';
import { POST_MEDIA, PostMediaItem, PostMediaPort } from './post-media.port';
import { PostQueueingService } from './post-queueing.service';
import { PostCheckpoint, PostTargetCheckpointsStore } from './post-target-checkpoints.store';
import { PostTargetPartsStore } from './post-target-parts.store';
import { PostTarget } from './post-target.entity';
import { Post, PostStatus, ThreadPart } from './post.entity';
import { PostsStore } from './posts.store';
import { PublishQueue } from './publish.queue';

const EDITABLE: PostStatus[] = ['draft', 'pending_approval', 'scheduled', 'failed'];
const EXTERNAL_ID_INDEX = 'UQ_posts_workspace_external_id';

/** Saves a post; another post of the workspace with the same externalId answers 409. */
async function saveWithExternalId(store: PostsStore, em: EntityManager, post: Partial<Post>): Promise<Post> {
  try {
    return await store.savePost(em, post);
  } catch (err) {
    const e = err as { driverError?: { code?: string; constraint?: string } };
    if (e.driverError?.code === '23505' && e.driverError.constraint === EXTERNAL_ID_INDEX) {
      throw AppError.conflict(`Another post of this workspace has externalId ${JSON.stringify(post.externalId)}`);
    }
    throw err;
  }
}

interface Checked {
  problems: PostProblemDto[];
  /** What the networks advise about a valid post (never a refusal). */
  warnings: PostProblemDto[];
  channels: Channel[];
  media: PostMediaItem[];
}

/** The thread of a request body as stored: every part with its media list. */
function threadOf(dto: CreatePostDto): ThreadPart[] {
  return (dto.thread ?? []).map((p) => ({ content: p.content, mediaIds: p.mediaIds ?? [] }));
}

/**
 * A channel's own content and media (null: the post's) and its network's options (null: none), by
 * channel id, with its index in `targets`.
 */
interface Override {
  index: number;
  content: string | null;
  mediaIds: string[] | null;
  options: Record<string, unknown> | null;
  /** This channel's first comment in place of the post's (`''`: none here); undefined: the post's. */
  firstComment: string | undefined;
}

/**
 * The body's per-channel overrides. Refuses (400) an entry whose channel is not one of `channelIds`, a
 * channel given twice and an entry that overrides nothing: the body is malformed, whatever the networks say.
 */
function overridesOf(dto: CreatePostDto): Map<string, Override> {
  const overrides = new Map<string, Override>();
  const details: ErrorDetail[] = [];
  (dto.targets ?? []).forEach((t, index) => {
    const field = `targets[${index}].channelId`;
    if (!dto.channelIds.includes(t.channelId)) {
      details.push({ field, message: `channel ${t.channelId} is not one of channelIds` });
    } else if (overrides.has(t.channelId)) {
      details.push({ field, message: `channel ${t.channelId} is given twice; give each channel once` });
    } else if (
      t.content === undefined &&
      t.mediaIds === undefined &&
      t.options === undefined &&
      t.firstComment === undefined
    ) {
      details.push({
        field: `targets[${index}]`,
        message: 'give content, mediaIds, options or firstComment (or leave the channel out)',
      });
    } else {
      const options = t.options && Object.keys(t.options).length > 0 ? t.options : null;
      const { content, mediaIds, firstComment } = t;
      overrides.set(t.channelId, {
        index,
        content: content ?? null,
        mediaIds: mediaIds ?? null,
        options,
        firstComment,
      });
    }
  });
  if (details.length) {
    throw AppError.invalid(details);
  }
  return overrides;
}

/** The override columns of a channel's target. */
function overrideColumns(
  override: Override | undefined,
): Pick<PostTarget, 'contentOverride' | 'mediaIdsOverride' | 'options'> {
  return {
    contentOverride: override?.content ?? null,
    mediaIdsOverride: override?.mediaIds ?? null,
    options: override?.options ?? null,
  };
}

/** Whether the body sends the post out (scheduledAt, publishNow or queue) rather than keeping a draft. */
function goesOut(dto: CreatePostDto): boolean {
  return !!dto.scheduledAt || !!dto.publishNow || !!dto.queue;
}

/** The first comment a channel publishes: its override's (`''`: none), else the post's; null: none. */
function firstCommentOf(dto: CreatePostDto, override: Override | undefined): string | null {
  const text = override?.firstComment !== undefined ? override.firstComment : dto.firstComment;
  return text ? text : null;
}

/** A target's first comment at the start of a publication: pending when it has one (docs/adr/0035). */
function freshComment(text: string | null): Partial<PostTarget> {
  return {
    firstComment: text,
    firstCommentStatus: text === null ? null : 'pending',
    firstCommentPlatformId: null,
    firstCommentUrl: null,
    firstCommentError: null,
    firstCommentAttempts: 0,
    firstCommentDueAt: null,
    firstCommentClaimJobId: null,
    firstCommentClaimedUntil: null,
  };
}

/** Problems of a provider's validate that concern one part (the others are the post's, reported once). */
const PART_FIELDS = new Set(['content', 'mediaIds']);

/** A problem's field without its index: `mediaIds[2]` (one video of the part) -> `mediaIds`. */
function baseField(field: string): string {
  return field.replace(/\[\d+\]$/, '');
}

/** Posts: create (draft / schedule / publish now), read, replace, delete, validate. */
@Injectable()
export class PostsService {
  /** What the workspace published in [from, to): posts created, targets published and failed per channel (usage). */
  usage(workspaceId: string, from: Date, to: Date) {
    return this.store.usage(workspaceId, from, to);
  }

  constructor(
    private readonly store: PostsStore,
    private readonly transactions: Transactions,
    private readonly channels: ChannelsService,
    private readonly providers: ProviderRegistry,
    private readonly queue: PublishQueue,
    @Inject(POST_MEDIA) private readonly media: PostMediaPort,
    private readonly parts: PostTargetPartsStore,
    private readonly queueing: PostQueueingService,
    private readonly workspaces: WorkspacesService,
    private readonly events: EventsService,
    private readonly checkpoints: PostTargetCheckpointsStore,
  ) {}

  /** What the networks' adapters saved while publishing the post (docs/adr/0023), for its console page. */
  checkpointsOf(workspaceId: string, postId: string): Promise<PostCheckpoint[]> {
    return this.checkpoints.ofPost(workspaceId, postId);
  }

  /**
   * POST /posts/validate: every problem, and the networks' warnings (advice that never refuses), nothing
   * saved. Malformed bodies still answer 400.
   */
  async validate(
    workspaceId: string,
    dto: CreatePostDto,
  ): Promise<{ problems: PostProblemDto[]; warnings: PostProblemDto[] }> {
    this.checkTiming(dto);
    overridesOf(dto);
    const { problems, warnings } = await this.check(workspaceId, dto);
    if (dto.queue && problems.length === 0)
      problems.push(...(await this.queueing.problems(workspaceId, dto.channelIds)));
    return { problems, warnings };
  }

  /**
   * POST /posts. A post that would go out (scheduledAt, publishNow, queue) waits in `pending_approval`
   * when the actor lacks posts:publish or the workspace requires approval; nothing is enqueued for it.
   */
  async create(actor: Actor, dto: CreatePostDto): Promise<PostDto> {
    const workspaceId = actor.workspaceId;
    this.checkTiming(dto);
    const overrides = overridesOf(dto);
    const { problems } = await this.check(workspaceId, dto);
    if (problems.length) throw this.problemsError(problems);
    const pending = goesOut(dto) && (await this.needsApproval(actor));
    const { post, targets } = await this.transactions.run(async (em) => {
      // A queued post takes its slot first (under the id it is about to get); see PostQueueSlot.
      const id = dto.queue ? randomUUID() : undefined;
      const queuedAt = id ? await this.queueing.reserve(em, workspaceId, id, dto.channelIds) : null;
      const post = await saveWithExternalId(this.store, em, {
        ...(id ? { id } : {}),
        workspaceId,
        content: dto.content,
        mediaIds: dto.mediaIds ?? [],
        thread: threadOf(dto),
        metadata: dto.metadata ?? {},
        externalId: dto.externalId ?? null,
        firstComment: dto.firstComment || null,
        publishedAt: null,
        approval: null,
        rejection: null,
        createdBy: actor.identity ? { ...actor.identity } : null,
        ...this.scheduleOf(dto, 0, queuedAt, pending),
      });
      const targets = await this.insertTargets(em, post, dto, overrides);
      if (pending) await this.recordEvent(em, 'post.approval_requested', post, targets);
      return { post, targets };
    });
    // Under Idempotency-Key this runs inside the request transaction: wait for its commit.
    await afterCommit(() => this.queue.enqueue(targets));
    return PostDto.from(post, targets);
  }

  /**
   * PUT /posts/{id}. An edit that keeps the post going out needs an approval again when the actor would
   * need one to create it, and a post pending approval stays pending whoever edits it.
   */
  async update(actor: Actor, id: string, dto: CreatePostDto): Promise<PostDto> {
    const workspaceId = actor.workspaceId;
    this.checkTiming(dto);
    const overrides = overridesOf(dto);
    await this.get(workspaceId, id);
    const { problems } = await this.check(workspaceId, dto);
    if (problems.length) throw this.problemsError(problems);
    const needsApproval = goesOut(dto) && (await this.needsApproval(actor));
    const result = await this.transactions.run(async (em) => {
      const post = await this.lockPost(em, workspaceId, id);
      if (!EDITABLE.includes(post.status)) {
        throw AppError.conflict(`A ${post.status} post cannot be edited`);
      }
      const wasPending = post.status === 'pending_approval';
      const pending = goesOut(dto) && (needsApproval || wasPending);
      // Any replace frees the post's slots; `queue: true` takes the earliest free one again.
      await this.queueing.release(em, id);
      const queuedAt = dto.queue ? await this.queueing.reserve(em, workspaceId, id, dto.channelIds) : null;
      const old = await this.store.targetsOf(id, em);
      const withParts = new Set(
        (
          await this.parts.forTargets(
            old.map((t) => t.id),
            em,
          )
        ).map((p) => p.targetId),
      );
      // Never post twice: targets already published (a failed multi-channel post) are kept, and so are
      // targets with published parts of a thread, which continue after those parts.
      const kept = old.filter(
        (t) => dto.channelIds.includes(t.channelId) && (t.status === 'published' || withParts.has(t.id)),
      );
      const dropped = old.filter((t) => !kept.includes(t));
      if (dropped.length)
        await this.store.deleteTargets(
          em,
          dropped.map((t) => t.id),
        );
      Object.assign(post, {
        content: dto.content,
        mediaIds: dto.mediaIds ?? [],
        thread: threadOf(dto),
        metadata: dto.metadata ?? {},
        // Omitted on a replace: the post keeps its reference.
        externalId: dto.externalId ?? post.externalId,
        firstComment: dto.firstComment || null,
        publishedAt: null,
        ...this.scheduleOf(dto, post.publication, queuedAt, pending),
      });
      if (post.status !== 'draft') post.rejection = null;
      await saveWithExternalId(this.store, em, post);
      const fresh = await this.insertTargets(
        em,
        post,
        dto,
        overrides,
        dto.channelIds.filter((c) => !kept.some((t) => t.channelId === c)),
      );
      for (const t of kept) {
        // The body replaces the overrides: a kept channel left out of `targets` publishes the post's content.
        const changes: Partial<PostTarget> = {
          position: dto.channelIds.indexOf(t.channelId),
          ...overrideColumns(overrides.get(t.channelId)),
        };
        // A published target keeps its first comment and its outcome: it is never published again.
        if (t.status !== 'published')
          Object.assign(changes, this.freshTarget(post), freshComment(firstCommentOf(dto, overrides.get(t.channelId))));
        Object.assign(t, changes);
        await this.store.updateTarget(em, t.id, changes);
      }
      const targets = [...kept, ...fresh];
      if (pending && !wasPending) await this.recordEvent(em, 'post.approval_requested', post, targets);
      return { post, targets, dropped };
    });
    await this.queue.cancel(result.dropped);
    await this.queue.enqueue(result.targets.filter((t) => t.status === 'pending'));
    return this.get(workspaceId, id);
  }

  /**
   * Deletes a post that never reached a network (a draft, a scheduled post, a failed one with nothing
   * published) and cancels its pending publication. A post that reached a network keeps its record:
   * published, or any target published, or any part of a thread published on a failed target (409).
   */
  async remove(workspaceId: string, id: string): Promise<void> {
    await this.get(workspaceId, id);
    const dropped = await this.transactions.run(async (em) => {
      const post = await this.lockPost(em, workspaceId, id);
      if (post.status === 'publishing')
        throw AppError.conflict('A publishing post cannot be deleted; retry when it has settled');
      const targets = await this.store.targetsOf(id, em);
      const withParts = new Set(
        (
          await this.parts.forTargets(
            targets.map((t) => t.id),
            em,
          )
        ).map((p) => p.targetId),
      );
      const reached = targets.filter((t) => t.status === 'published' || withParts.has(t.id));
      if (post.status === 'published' || reached.length > 0) {
        throw AppError.conflict(
          `This post was published (on ${reached.length} of its ${targets.length} channels): its record is kept. ` +
            'Deleting here never removes it from the networks.',
        );
      }
      await this.store.deletePost(em, id);
      return targets;
    });
    await this.queue.cancel(dropped);
  }

  /**
   * POST /posts/{id}/approve: a post pending approval goes out as it asked to: scheduled at its time,
   * published now (publishNow), or at once when its time has passed (the lateness is recorded). The
   * row lock decides between concurrent approvals and rejections: the second finds it no longer pending (409).
   */
  async approve(actor: Actor, id: string): Promise<PostDto> {
    assertScope(actor, 'posts:approve');
    await this.get(actor.workspaceId, id);
    const targets = await this.transactions.run(async (em) => {
      const post = await this.lockPending(em, actor.workspaceId, id, 'approved');
      const now = new Date();
      const late = post.scheduledAt !== null && post.scheduledAt.getTime() <= now.getTime();
      const dueAt = post.scheduledAt && !late ? post.scheduledAt : now;
      Object.assign(post, {
        status: dueAt === now ? 'publishing' : 'scheduled',
        timelineAt: post.scheduledAt ?? now,
        publication: post.publication + 1,
        approval: {
          at: now.toISOString(),
          by: actor.by,
          latenessSeconds: late ? Math.round((now.getTime() - post.scheduledAt!.getTime()) / 1000) : null,
        },
        rejection: null,
      } satisfies Partial<Post>);
      await this.store.savePost(em, post);
      const targets = await this.store.targetsOf(id, em);
      for (const t of targets) {
        if (t.status === 'published') continue;
        const changes = { ...this.freshTarget(post), dueAt, publicationStartedAt: dueAt };
        Object.assign(t, changes);
        await this.store.updateTarget(em, t.id, changes);
      }
      await this.recordEvent(em, 'post.approved', post, targets);
      return targets;
    });
    await afterCommit(() => this.queue.enqueue(targets.filter((t) => t.status === 'pending')));
    return this.get(actor.workspaceId, id);
  }

  /** POST /posts/{id}/reject: a post pending approval becomes a draft again, with the reason and who gave it. */
  async reject(actor: Actor, id: string, reason: string): Promise<PostDto> {
    assertScope(actor, 'posts:approve');
    await this.get(actor.workspaceId, id);
    await this.transactions.run(async (em) => {
      const post = await this.lockPending(em, actor.workspaceId, id, 'rejected');
      await this.queueing.release(em, id);
      const now = new Date();
      Object.assign(post, {
        status: 'draft',
        scheduledAt: null,
        timelineAt: now,
        queued: false,
        rejection: { reason, at: now.toISOString(), by: actor.by },
      } satisfies Partial<Post>);
      await this.store.savePost(em, post);
      await this.recordEvent(em, 'post.rejected', post, await this.store.targetsOf(id, em));
    });
    return this.get(actor.workspaceId, id);
  }

  async get(workspaceId: string, id: string): Promise<PostDto> {
    const post = isUuid(id) ? await this.store.findPost(workspaceId, id) : null;
    if (!post) throw AppError.notFound('Post');
    const targets = await this.store.targetsOf(id);
    return PostDto.from(post, targets, await this.parts.forTargets(targets.map((t) => t.id)));
  }

  /** Keyset pagination on (sort column, id), with each post's targets and their parts. */
  async list(workspaceId: string, q: ListPostsQueryDto): Promise<Page<PostDto>> {
    const { data: page, nextCursor } = await this.store.page(workspaceId, q);
    const targets = await this.store.targetsOfPosts(page.map((p) => p.id));
    const parts = await this.parts.forTargets(targets.map((t) => t.id));
    return {
      data: page.map((p) =>
        PostDto.from(
          p,
          targets.filter((t) => t.postId === p.id),
          parts,
        ),
      ),
      nextCursor,
    };
  }

  /**
   * Moves a scheduled post to another time (the console's calendar): the post as it is, replaced with
   * only `scheduledAt` changed, so the same checks, approval rules and publication apply as to a PUT.
   */
  async reschedule(actor: Actor, id: string, scheduledAt: string): Promise<PostDto> {
    const post = await this.get(actor.workspaceId, id);
    if (post.status !== 'scheduled') {
      throw AppError.conflict(`Only a scheduled post can be moved; this one is ${post.status}`);
    }
    const dto = Object.assign(new CreatePostDto(), {
      content: post.content,
      channelIds: post.channelIds,
      mediaIds: post.mediaIds,
      thread: post.thread.map((p) => ({ content: p.content, mediaIds: p.mediaIds })),
      metadata: post.metadata,
      firstComment: post.firstComment ?? undefined,
      targets: post.targets
        .filter((t) => t.content !== undefined || t.mediaIds !== undefined || t.options !== undefined)
        .map((t) => ({ channelId: t.channelId, content: t.content, mediaIds: t.mediaIds, options: t.options })),
      scheduledAt,
    });
    return this.update(actor, id, dto);
  }

  /**
   * A text's length on each of these channels as its network's validation counts it
   * (SocialProvider.countCharacters), with the channel's limit: the composer's counters.
   */
  async characterCounts(
    workspaceId: string,
    text: string,
    channelIds: string[],
  ): Promise<Array<{ channelId: string; count: number; max: number }>> {
    const channels = await this.channels.findMany(workspaceId, channelIds);
    return channels.map((c) => {
      const provider = this.providers.get(c.provider);
      const count = provider.countCharacters ? provider.countCharacters(text) : [...text].length;
      return { channelId: c.id, count, max: c.limits.maxCharacters };
    });
  }

  /**
   * What a saved post breaks of its channels' limits now (the same checks as POST /posts/validate, by
   * each network's plugin), for the console's previews; nothing saved, timing not checked. Problems name
   * fields as validation does (`mediaIds[1]`, `targets[0].content`).
   */
  async limitProblems(workspaceId: string, post: PostDto): Promise<PostProblemDto[]> {
    const dto = Object.assign(new CreatePostDto(), {
      content: post.content,
      channelIds: post.channelIds,
      mediaIds: post.mediaIds,
      thread: post.thread.map((p) => ({ content: p.content, mediaIds: p.mediaIds })),
      firstComment: post.firstComment ?? undefined,
      targets: post.targets
        .filter((t) => t.content !== undefined || t.mediaIds !== undefined || t.options !== undefined)
        .map((t) => ({ channelId: t.channelId, content: t.content, mediaIds: t.mediaIds, options: t.options })),
    });
    try {
      return (await this.check(workspaceId, dto)).problems;
    } catch (err) {
      if (err instanceof AppError) return [];
      throw err;
    }
  }

  private checkTiming(dto: CreatePostDto): void {
    if (dto.queue && (dto.scheduledAt || dto.publishNow)) {
      const other = dto.scheduledAt ? 'scheduledAt' : 'publishNow';
      throw AppError.validation(`Give either queue or ${other}, not both`, [
        { field: 'queue', message: `cannot be combined with ${other}` },
      ]);
    }
    if (dto.scheduledAt && dto.publishNow) {
      throw AppError.validation('Give either scheduledAt or publishNow, not both', [
        { field: 'publishNow', message: 'cannot be combined with scheduledAt' },
      ]);
    }
    if (dto.scheduledAt && Date.parse(dto.scheduledAt) <= Date.now()) {
      throw AppError.invalid([{ field: 'scheduledAt', message: 'must be in the future' }]);
    }
  }

  /**
   * Channels active and in the workspace, media of every part (and of every channel's override) ready
   * and in the workspace, every part against each channel's limits (the first part as the channel's
   * override has it), and threads only where the channel takes them.
   */
  private async check(workspaceId: string, dto: CreatePostDto): Promise<Checked> {
    const problems: PostProblemDto[] = [];
    const warnings: PostProblemDto[] = [];
    const thread = threadOf(dto);
    const overrides = overridesOf(dto);
    const parts = [{ content: dto.content, mediaIds: dto.mediaIds ?? [] }, ...thread];
    const allMediaIds = [
      ...new Set([...parts.flatMap((p) => p.mediaIds), ...[...overrides.values()].flatMap((o) => o.mediaIds ?? [])]),
    ];
    const [channels, media] = await Promise.all([
      this.channels.findMany(workspaceId, dto.channelIds),
      allMediaIds.length ? this.media.findMany(workspaceId, allMediaIds) : Promise.resolve([]),
    ]);
    // Part 0's problems are named as before (`mediaIds`); part i's under `thread[i - 1]`.
    const path = (index: number, field: string) => (index === 0 ? field : `thread[${index - 1}].${field}`);
    const label = (index: number) => (index === 0 ? '' : `thread[${index - 1}]: `);
    /** The ready items among `ids`, in order; a problem for each one missing or not ready. */
    const readyOf = (ids: string[], field: string, prefix: string, channelId: string | null) => {
      const ordered = ids.map((id) => media.find((m) => m.id === id));
      ids.forEach((id, i) => {
        const m = ordered[i];
        if (!m) problems.push({ channelId, field, message: `${prefix}media ${id} not found` });
        else if (m.status !== 'ready')
          problems.push({ channelId, field, message: `${prefix}media ${id} is ${m.status}, not ready` });
      });
      return ordered.filter((m): m is PostMediaItem => !!m && m.status === 'ready');
    };
    const readyByPart = parts.map((part, index) => readyOf(part.mediaIds, path(index, 'mediaIds'), label(index), null));
    const overrideMedia = new Map(
      [...overrides].flatMap(([channelId, o]) =>
        o.mediaIds === null
          ? []
          : [[channelId, readyOf(o.mediaIds, `targets[${o.index}].mediaIds`, `targets[${o.index}]: `, channelId)]],
      ),
    );
    for (const channelId of dto.channelIds) {
      const channel = channels.find((c) => c.id === channelId);
      if (!channel) {
        problems.push({
          channelId,
          field: 'channelIds',
          message: `channel ${channelId} not found in this workspace (GET /api/channels lists yours)`,
        });
        continue;
      }
      if (channel.status !== 'active') {
        problems.push({
          channelId,
          field: 'channelIds',
          message: `channel ${channelId} (${channel.handle}) is disconnected`,
        });
        continue;
      }
      const provider = this.providers.get(channel.provider);
      const prefix = `channel ${channelId} (${channel.provider} ${channel.handle}): `;
      // The channel's first part: its override where it has one (problems then name `targets[i].<field>`).
      const override = overrides.get(channelId);
      const options = override?.options ?? {};
      const first = {
        content: override?.content ?? dto.content,
        media: overrideMedia.get(channelId) ?? readyByPart[0],
        options,
      };
      const overridden = (field: string) =>
        override !== undefined &&
        ((field === 'content' && override.content !== null) ||
          (baseField(field) === 'mediaIds' && override.mediaIds !== null));
      // Options: the schema's problems, and the network's own checks (which word a field better: the
      // allowed values of a creator, say) in place of the schema's for the same field. A network whose
      // schema requires a field is checked without options too: the post is refused, not published
      // without them. Without a `targets` entry the problem is at `targets`.
      const optionProblems = new Map<string, string>();
      for (const p of this.providers.checkOptions(channel.provider, options)) {
        optionProblems.set(p.field ? `options.${p.field}` : 'options', p.message);
      }
      for (const p of provider.validate(first, channel.limits)) {
        if (p.field === 'options' || p.field.startsWith('options.')) {
          optionProblems.set(p.field, p.message);
          continue;
        }
        const field = overridden(p.field) ? `targets[${override!.index}].${p.field}` : p.field;
        problems.push({ channelId, field, message: `${prefix}${p.message}` });
      }
      for (const w of provider.warnings?.(first, channel.limits) ?? []) {
        const field = overridden(w.field) ? `targets[${override!.index}].${w.field}` : w.field;
        warnings.push({ channelId, field, message: `${prefix}${w.message}` });
      }
      for (const [name, message] of optionProblems) {
        if (override) {
          const field = `targets[${override.index}].${name}`;
          problems.push({ channelId, field, message: `${prefix}${field} ${message}` });
        } else {
          const hint = ' (give it in targets[].options for this channel)';
          problems.push({ channelId, field: 'targets', message: `${prefix}${name} ${message}${hint}` });
        }
      }
      const comment = firstCommentOf(dto, override);
      if (comment !== null) {
        const field = override?.firstComment !== undefined ? `targets[${override.index}].firstComment` : 'firstComment';
        if (!channel.limits.firstComment) {
          const network = this.providers.plugin(channel.provider).displayName;
          problems.push({
            channelId,
            field,
            message: `${prefix}${network} does not take a first comment; leave it out for this channel`,
          });
        } else {
          // Checked as a post of its own without media: the network's text limit.
          for (const p of provider.validate({ content: comment, media: [] }, channel.limits)) {
            if (p.field === 'content') problems.push({ channelId, field, message: `${prefix}${field}: ${p.message}` });
          }
        }
      }
      if (thread.length === 0) continue;
      if (!channel.limits.threads) {
        const network = this.providers.plugin(channel.provider).displayName;
        problems.push({
          channelId,
          field: 'thread',
          message: `${prefix}${network} does not take threads; publish the parts as separate posts`,
        });
        continue;
      }
      thread.forEach((part, i) => {
        const index = i + 1;
        const draft = { content: part.content, media: readyByPart[index] };
        for (const p of provider.validate(draft, channel.limits)) {
          if (!PART_FIELDS.has(baseField(p.field))) continue;
          problems.push({ channelId, field: path(index, p.field), message: `${prefix}${label(index)}${p.message}` });
        }
        for (const w of provider.warnings?.(draft, channel.limits) ?? []) {
          warnings.push({ channelId, field: path(index, w.field), message: `${prefix}${label(index)}${w.message}` });
        }
      });
    }
    return { problems, warnings, channels, media: [...readyByPart.flat(), ...[...overrideMedia.values()].flat()] };
  }

  private problemsError(problems: PostProblemDto[]): AppError {
    const details: ErrorDetail[] = problems.map((p) => ({ field: p.field, message: p.message }));
    return AppError.validation(problems.map((p) => p.message).join('; '), details);
  }

  /** Whether a post this actor sends out must wait for an approval (the key's scopes, the workspace's setting). */
  private async needsApproval(actor: Actor): Promise<boolean> {
    if (!holdsScope(actor.scopes, 'posts:publish')) return true;
    return actor.by.type === 'api_key' && (await this.workspaces.approvalRequired(actor.workspaceId));
  }

  private async lockPending(em: EntityManager, workspaceId: string, id: string, verb: string): Promise<Post> {
    const post = await this.lockPost(em, workspaceId, id);
    if (post.status !== 'pending_approval') {
      throw AppError.conflict(`Only a post pending approval can be ${verb}; this one is ${post.status}`);
    }
    return post;
  }

  private async recordEvent(
    em: EntityManager,
    type: 'post.approval_requested' | 'post.approved' | 'post.rejected',
    post: Post,
    targets: PostTarget[],
  ): Promise<void> {
    const parts = await this.parts.forTargets(
      targets.map((t) => t.id),
      em,
    );
    await this.events.record(em, { type, workspaceId: post.workspaceId, data: PostDto.from(post, targets, parts) });
  }

  /**
   * Status, schedule and publication number implied by the body (`queuedAt`: the slot a queued post took).
   * `pending`: it waits for an approval, keeping the time it asked for (none: publish now once approved);
   * the publication number moves on at the approval.
   */
  private scheduleOf(dto: CreatePostDto, publication: number, queuedAt: Date | null = null, pending = false) {
    const now = new Date();
    if (pending) {
      const at = queuedAt ?? (dto.scheduledAt ? new Date(dto.scheduledAt) : null);
      return {
        status: 'pending_approval' as const,
        scheduledAt: at,
        timelineAt: at ?? now,
        publication,
        queued: !!queuedAt,
      };
    }
    if (queuedAt)
      return {
        status: 'scheduled' as const,
        scheduledAt: queuedAt,
        timelineAt: queuedAt,
        publication: publication + 1,
        queued: true,
      };
    if (dto.publishNow)
      return {
        status: 'publishing' as const,
        scheduledAt: null,
        timelineAt: now,
        publication: publication + 1,
        queued: false,
      };
    if (dto.scheduledAt) {
      const at = new Date(dto.scheduledAt);
      return {
        status: 'scheduled' as const,
        scheduledAt: at,
        timelineAt: at,
        publication: publication + 1,
        queued: false,
      };
    }
    return { status: 'draft' as const, scheduledAt: null, timelineAt: now, publication, queued: false };
  }

  private async insertTargets(
    em: EntityManager,
    post: Post,
    dto: CreatePostDto,
    overrides: Map<string, Override>,
    channelIds = dto.channelIds,
  ): Promise<PostTarget[]> {
    if (channelIds.length === 0) return [];
    return this.store.insertTargets(
      em,
      channelIds.map((channelId) => ({
        postId: post.id,
        channelId,
        position: dto.channelIds.indexOf(channelId),
        ...overrideColumns(overrides.get(channelId)),
        ...this.freshTarget(post),
        ...freshComment(firstCommentOf(dto, overrides.get(channelId))),
        platformPostId: null,
        url: null,
        publishedAt: null,
      })),
    );
  }

  /** The state of a target at the start of the post's (re)publication. */
  private freshTarget(post: Post): Partial<PostTarget> {
    const dueAt =
      post.status === 'draft' || post.status === 'pending_approval' ? null : (post.scheduledAt ?? new Date());
    return {
      status: 'pending',
      publication: post.publication,
      dueAt,
      publicationStartedAt: dueAt,
      attempts: 0,
      claimJobId: null,
      claimedUntil: null,
      errorCode: null,
      errorMessage: null,
    };
  }

  private async lockPost(em: EntityManager, workspaceId: string, id: string): Promise<Post> {
    const post = await this.store.lockPost(em, workspaceId, id);
    if (!post) throw AppError.notFound('Post');
    return post;
  }
}
