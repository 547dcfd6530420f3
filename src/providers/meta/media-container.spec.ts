import { ProcessingPendingError, TransientProviderError, VideoProcessingFailedError } from '../provider.errors';
import type { PublishInput } from '../social-provider.interface';
import { ContainerState, ContainerSteps, publishThroughContainer } from './media-container';

/** A network of containers in memory: each video container is IN_PROGRESS for `polls` reads. */
function network(polls = 2) {
  const created: string[] = [];
  const states = new Map<string, { left: number; final: ContainerState['status']; error: string | null }>();
  const published: string[] = [];
  const make = (id: string, final: ContainerState['status'] = 'FINISHED', error: string | null = null) => {
    created.push(id);
    states.set(id, { left: polls, final, error });
    return id;
  };
  let failNext = false;
  const steps = (items: number): ContainerSteps => ({
    name: 'Net',
    mediaError: true,
    create: () =>
      Promise.resolve(make(`c${created.length + 1}`, failNext ? 'ERROR' : 'FINISHED', failNext ? 'BAD' : null)),
    status: (id) => {
      const s = states.get(id);
      if (!s) return Promise.resolve({ status: 'GONE', error: null });
      if (published.includes(id)) return Promise.resolve({ status: 'PUBLISHED', error: null });
      if (s.left > 0) {
        s.left--;
        return Promise.resolve({ status: 'IN_PROGRESS', error: null });
      }
      return Promise.resolve({ status: s.final, error: s.error });
    },
    publish: (id) => {
      published.push(id);
      return Promise.resolve(`m-${id}`);
    },
    permalink: (mediaId) => Promise.resolve(`https://net.example/${mediaId}`),
    findPublished: () => Promise.resolve(null),
    video: {
      items,
      pollMs: 1234,
      createItem: (index) => Promise.resolve(make(`item${index}-${created.length}`)),
      createCarousel: (children) => Promise.resolve(make(`carousel(${children.join(',')})`)),
    },
  });
  return {
    created,
    published,
    steps,
    failNextVideo: () => void (failNext = true),
    expire: (id: string) => void states.set(id, { left: 0, final: 'EXPIRED', error: null }),
  };
}

/** A publish input whose checkpoint is kept as the publisher keeps it, across attempts. */
function attempts() {
  let checkpoint: Record<string, unknown> | null = null;
  const saves: Array<Record<string, unknown>> = [];
  const input = (): PublishInput => ({
    credentials: {},
    content: 'x',
    media: [],
    idempotencyKey: 'k',
    createdAt: new Date(),
    checkpoint,
    saveCheckpoint: (state: Record<string, unknown>) => {
      checkpoint = JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
      saves.push(checkpoint);
      return Promise.resolve();
    },
  });
  return {
    input,
    saves,
    get checkpoint() {
      return checkpoint;
    },
  };
}

const timing = { pollMs: 1, maxWaitMs: 10 };

/** Runs attempts until one publishes (as the publisher's delayed polls would), counting the pending ones. */
async function untilPublished(run: () => Promise<unknown>) {
  let pending = 0;
  for (;;) {
    try {
      return { result: await run(), pending };
    } catch (err) {
      if (!(err instanceof ProcessingPendingError)) throw err;
      expect(err.checkAfterMs).toBe(1234);
      pending++;
    }
  }
}

describe('publishThroughContainer with a video', () => {
  it('never waits in the attempt: each IN_PROGRESS read ends it pending, the saved container is reused until FINISHED', async () => {
    const net = network(3);
    const a = attempts();
    const { result, pending } = await untilPublished(() => publishThroughContainer(a.input(), net.steps(1), timing));
    expect(pending).toBe(3);
    expect(net.created).toEqual(['c1']);
    expect(net.published).toEqual(['c1']);
    expect(result).toEqual({ platformPostId: 'm-c1', url: 'https://net.example/m-c1' });
    expect(a.saves[0]).toEqual({ container: 'c1' });
    // Once published, another attempt returns the saved outcome without calling the network.
    await expect(publishThroughContainer(a.input(), net.steps(1), timing)).resolves.toEqual(result);
    expect(net.published).toEqual(['c1']);
  });

  it('makes a carousel once: items saved one by one, each polled, then the carousel, then published', async () => {
    const net = network(1);
    const a = attempts();
    const { pending } = await untilPublished(() => publishThroughContainer(a.input(), net.steps(2), timing));
    expect(pending).toBe(3); // each item, then the carousel
    expect(net.created).toEqual(['item0-0', 'item1-1', 'carousel(item0-0,item1-1)']);
    expect(net.published).toEqual(['carousel(item0-0,item1-1)']);
    expect(a.saves.slice(0, 2)).toEqual([{ children: ['item0-0'] }, { children: ['item0-0', 'item1-1'] }]);
  });

  it('fails for good with VideoProcessingFailedError when the network reports ERROR', async () => {
    const net = network(1);
    net.failNextVideo();
    const a = attempts();
    await expect(publishThroughContainer(a.input(), net.steps(1), timing)).rejects.toBeInstanceOf(
      ProcessingPendingError,
    );
    const failure = publishThroughContainer(a.input(), net.steps(1), timing);
    await expect(failure).rejects.toBeInstanceOf(VideoProcessingFailedError);
    await expect(failure).rejects.toThrow('Net could not process the video: BAD');
    expect(net.published).toEqual([]);
  });

  it('starts over on the next attempt when the saved container expired', async () => {
    const net = network(0);
    const a = attempts();
    await a.input().saveCheckpoint({ container: 'old' });
    net.created.push('old');
    net.expire('old');
    await expect(publishThroughContainer(a.input(), net.steps(1), timing)).rejects.toBeInstanceOf(
      TransientProviderError,
    );
    expect(a.checkpoint).toEqual({});
    await expect(publishThroughContainer(a.input(), net.steps(1), timing)).resolves.toEqual(
      expect.objectContaining({ platformPostId: 'm-c2' }),
    );
  });
});
