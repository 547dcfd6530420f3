import { ThreadsFake } from '../fakes/threads.fake';
import { useOAuthApp } from '../oauth/oauth-harness';
import { waitFor } from '../support/publishing-env';

describe('first comments on Threads: a reply container with reply_to_id the post', () => {
  const threads = new ThreadsFake();
  const h = useOAuthApp('threads', threads, {
    reachable: true,
    env: { META_CONTAINER_POLL_MS: '20', META_CONTAINER_WAIT_SECONDS: '2' },
  });

  it('publishes the comment as a reply to the post once it is live', async () => {
    const channelId = await h.connect();
    const id = await h.publishNow(channelId, 'Threads post', [], { firstComment: 'Threads comment' });
    const post = await waitFor(
      () => h.getPost(id),
      (p) => p.status === 'published' && p.targets[0].firstComment?.status !== 'pending',
    );
    const root = threads.posts.find((p) => p.text === 'Threads post')!;
    const comments = threads.posts.filter((p) => p.text === 'Threads comment');
    expect(comments).toHaveLength(1);
    expect(comments[0].replyToId).toBe(root.id);
    expect(post.targets[0]).toEqual(
      expect.objectContaining({
        status: 'published',
        platformPostId: root.id,
        firstComment: expect.objectContaining({ status: 'published', platformId: comments[0].id }),
      }),
    );
  });
});
