import { setTimeout as sleep } from 'node:timers/promises';
import { setting } from '../../config/settings';
import { asString, asStringArray } from '../provider-json.util';
import {
  ContentRejectedError,
  MediaRejectedError,
  ProcessingPendingError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../provider.errors';
import type { PublishedRef, PublishInput, PublishResult } from '../social-provider.interface';

/**
 * Publishing through a media container (Threads, Instagram): create the container, wait until the
 * network has processed it, publish it. The container makes a retry safe only if it is reused, so
 * its id is saved as the publish checkpoint before the publish call, and a retry starts from it
 * (docs/adr/0023).
 */

/** A container's state as the network reports it; GONE when it no longer exists. */
export type ContainerStatus = 'FINISHED' | 'IN_PROGRESS' | 'ERROR' | 'EXPIRED' | 'PUBLISHED' | 'GONE';

export interface ContainerState {
  status: ContainerStatus;
  /** The network's reason for ERROR, when given. */
  error: string | null;
}

/** What one network does at each step. */
export interface ContainerSteps {
  name: string;
  /** Creates the container to publish (for a carousel: the items, then the carousel) and returns its id. */
  create(): Promise<string>;
  status(containerId: string): Promise<ContainerState>;
  /** Publishes a finished container; returns the published media id. */
  publish(containerId: string): Promise<string>;
  /** The public URL of a published media (a constructed one when the network does not give it). */
  permalink(mediaId: string): Promise<string>;
  /**
   * After an answer was lost: the post published from the container, looked up on the account's
   * recent media (the container does not name it). Null when it is not listed (yet).
   */
  findPublished(): Promise<PublishedRef | null>;
  /** Whether an ERROR is the media's fault (MEDIA_REJECTED) rather than the text's. */
  mediaError: boolean;
  /**
   * Set when the post carries a video: the network processes it for minutes, so nothing waits in the
   * attempt. Each container is read once per attempt, and while one is IN_PROGRESS the attempt ends
   * with ProcessingPendingError after the checkpoint names it (the publisher polls again later).
   */
  video?: VideoContainerSteps;
}

/** How a post with a video is built: one container, or carousel items then the carousel. */
export interface VideoContainerSteps {
  /** Media items of the post: 1 publishes the container `create()` makes, more a carousel. */
  items: number;
  /** Creates the carousel item container of media `index`. */
  createItem(index: number): Promise<string>;
  /** Creates the carousel container of finished item containers. */
  createCarousel(children: string[]): Promise<string>;
  /** When to look again while the network processes, in ms. */
  pollMs: number;
}

/** The settings of the wait for a container, shared by Threads and Instagram (declared by both plugins). */
export const META_CONTAINER_SETTINGS = {
  containerPollMs: setting.int('META_CONTAINER_POLL_MS', {
    default: 1000,
    min: 10,
    max: 60_000,
    description: "Threads and Instagram: first pause between reads of a media container's status (doubles up to 5 s)",
  }),
  containerWaitSeconds: setting.int('META_CONTAINER_WAIT_SECONDS', {
    default: 30,
    min: 1,
    max: 600,
    description:
      'Threads and Instagram: longest wait for a container per attempt; the next attempt goes on with the same container',
  }),
};

/** How long to wait for a container to be processed. */
export interface ContainerTiming {
  /** First pause between two status reads, in ms; it doubles up to 5 s. */
  pollMs: number;
  /** Longest wait for one container; beyond it the attempt is retried later with the same container. */
  maxWaitMs: number;
  /** Pause before the next read of a video container being processed (a delayed job, META_VIDEO_POLL_MS). */
  videoPollMs?: number;
}

/** The publish checkpoint of a container-based network. */
interface ContainerCheckpoint {
  /** Carousel items created so far (a post with a video), in media order. */
  children?: string[];
  container?: string;
  mediaId?: string;
  url?: string;
}

function readCheckpoint(raw: Record<string, unknown> | null): ContainerCheckpoint {
  return {
    children: asStringArray(raw?.children),
    container: asString(raw?.container),
    mediaId: asString(raw?.mediaId),
    url: asString(raw?.url),
  };
}

/**
 * Publishes through a container, reusing the one an earlier attempt saved: already published → that
 * post; finished or in progress → publish it; failed, expired or gone → a new one.
 */
export async function publishThroughContainer(
  input: PublishInput,
  steps: ContainerSteps,
  timing: ContainerTiming,
): Promise<PublishResult> {
  const saved = readCheckpoint(input.checkpoint);
  if (saved.mediaId && saved.url) return { platformPostId: saved.mediaId, url: saved.url };
  if (steps.video) return publishVideoThroughContainer(input, steps, steps.video, saved);
  let container = saved.container;
  if (container) {
    const state = await steps.status(container);
    if (state.status === 'PUBLISHED') return recover(input, steps, container);
    if (state.status === 'ERROR' || state.status === 'EXPIRED' || state.status === 'GONE') container = undefined;
  }
  if (!container) {
    container = await steps.create();
    // Before anything that could publish it: a retry must find this container, not make another.
    await input.saveCheckpoint({ container });
  }
  const ready = await waitUntilFinished(steps, container, timing);
  if (ready === 'PUBLISHED') return recover(input, steps, container);
  const mediaId = await steps.publish(container);
  const result = { platformPostId: mediaId, url: await steps.permalink(mediaId) };
  try {
    await input.saveCheckpoint({ container, mediaId, url: result.url });
  } catch {
    // Published: the record of the outcome follows; a retry would find the container published.
  }
  return result;
}

/**
 * A post with a video (alone, or in a carousel with images): the containers are created once, each
 * saved in the checkpoint before anything else is sent, and read once per attempt. IN_PROGRESS ends
 * the attempt with ProcessingPendingError (no worker waits for the network's processing: the
 * publisher polls again with a delayed job, bounded by VIDEO_PROCESSING_MAX_WAIT_SECONDS); ERROR
 * fails the target for good (VideoProcessingFailedError); EXPIRED or GONE starts over on the next
 * attempt. A crash or retry anywhere goes on with the saved containers: one container, one post.
 */
async function publishVideoThroughContainer(
  input: PublishInput,
  steps: ContainerSteps,
  video: VideoContainerSteps,
  saved: ContainerCheckpoint,
): Promise<PublishResult> {
  const children = video.items > 1 ? (saved.children ?? []).slice(0, video.items) : [];
  let container = saved.container;
  if (!container) {
    if (video.items === 1) {
      container = await steps.create();
      await input.saveCheckpoint({ container });
    } else {
      while (children.length < video.items) {
        children.push(await video.createItem(children.length));
        await input.saveCheckpoint({ children });
      }
      // Every item must be processed before the carousel is created from them.
      for (const child of children) {
        const state = await steps.status(child);
        if (state.status === 'FINISHED') continue;
        if (state.status === 'IN_PROGRESS') throw pending(steps, child, video);
        if (state.status === 'ERROR') throw processingFailed(steps, state);
        // Expired or gone: the next attempt makes the items again.
        await input.saveCheckpoint({});
        throw new TransientProviderError(`${steps.name} carousel item ${child} expired before it was published`);
      }
      container = await video.createCarousel(children);
      await input.saveCheckpoint({ children, container });
    }
  }
  const state = await steps.status(container);
  switch (state.status) {
    case 'PUBLISHED':
      return recover(input, steps, container);
    case 'IN_PROGRESS':
      throw pending(steps, container, video);
    case 'ERROR':
      throw processingFailed(steps, state);
    case 'EXPIRED':
    case 'GONE':
      await input.saveCheckpoint({});
      throw new TransientProviderError(`${steps.name} container ${container} expired before it was published`);
    case 'FINISHED':
      break;
  }
  const mediaId = await steps.publish(container);
  const result = { platformPostId: mediaId, url: await steps.permalink(mediaId) };
  try {
    await input.saveCheckpoint({
      children: children.length ? children : undefined,
      container,
      mediaId,
      url: result.url,
    });
  } catch {
    // Published: the record of the outcome follows; a retry would find the container published.
  }
  return result;
}

function pending(steps: Pick<ContainerSteps, 'name'>, container: string, video: VideoContainerSteps): Error {
  return new ProcessingPendingError(`${steps.name} is processing the video (container ${container})`, video.pollMs);
}

function processingFailed(steps: Pick<ContainerSteps, 'name'>, state: ContainerState): Error {
  return new VideoProcessingFailedError(
    `${steps.name} could not process the video${state.error ? `: ${state.error}` : ''}`,
  );
}

/** The post of a container found published (its publish answer was lost). */
async function recover(input: PublishInput, steps: ContainerSteps, container: string): Promise<PublishResult> {
  const found = await steps.findPublished();
  if (!found) {
    throw new TransientProviderError(
      `${steps.name} published container ${container} but does not list the post yet; looking again later`,
    );
  }
  try {
    await input.saveCheckpoint({ container, mediaId: found.platformPostId, url: found.url });
  } catch {
    // as above
  }
  return found;
}

/**
 * Reads the container's status until it is FINISHED (or found PUBLISHED), pausing `pollMs` doubling
 * up to 5 s. ERROR is a refusal (MediaRejectedError when the media is at fault); EXPIRED, GONE or
 * still IN_PROGRESS after `maxWaitMs` are transient (the retry goes on with the saved container).
 */
export async function waitUntilFinished(
  steps: Pick<ContainerSteps, 'name' | 'status' | 'mediaError'>,
  container: string,
  timing: ContainerTiming,
): Promise<'FINISHED' | 'PUBLISHED'> {
  const deadline = Date.now() + timing.maxWaitMs;
  let pause = timing.pollMs;
  for (;;) {
    const state = await steps.status(container);
    switch (state.status) {
      case 'FINISHED':
      case 'PUBLISHED':
        return state.status;
      case 'ERROR': {
        const reason = `${steps.name} could not process the post${state.error ? `: ${state.error}` : ''}`;
        throw steps.mediaError ? new MediaRejectedError(reason) : new ContentRejectedError(reason);
      }
      case 'EXPIRED':
      case 'GONE':
        throw new TransientProviderError(`${steps.name} container ${container} expired before it was published`);
      case 'IN_PROGRESS':
        break;
    }
    if (Date.now() + pause > deadline) {
      throw new TransientProviderError(
        `${steps.name} is still processing the post after ${Math.round(timing.maxWaitMs / 1000)} s; publishing it later`,
      );
    }
    await sleep(pause);
    pause = Math.min(pause * 2, 5_000);
  }
}
