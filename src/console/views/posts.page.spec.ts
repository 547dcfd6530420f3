import type { Channel } from '../../channels/channel.entity';
import type { PostDto } from '../../posts/dto/post.dto';
import type { ProviderDto } from '../../providers/dto/provider.dto';
import { optionsText, postsPage } from './posts.page';

describe('console posts page', () => {
  it('shows options with lists as their items', () => {
    expect(optionsText({ madeForKids: false, privacy: 'unlisted', tags: ['launch', 'open source'] })).toBe(
      'madeForKids: false · privacy: unlisted · tags: launch, open source',
    );
  });

  it("names each target's channel by its network's display name, with its options and public link", () => {
    const channels = [
      { id: 'c-yt', provider: 'youtube', handle: '@main' },
      { id: 'c-tt', provider: 'tiktok', handle: 'contract.tiktok' },
    ] as Channel[];
    const networks = [
      { id: 'youtube', name: 'YouTube' },
      { id: 'tiktok', name: 'TikTok' },
    ] as ProviderDto[];
    const target = (channelId: string, url: string, options: Record<string, unknown>) => ({
      channelId,
      status: 'published',
      url,
      error: null,
      options,
      firstComment: null,
    });
    const post = {
      id: 'p1',
      content: 'Launch video',
      status: 'published',
      createdAt: '2026-11-27T00:00:00.000Z',
      scheduledAt: null,
      queued: false,
      targets: [
        target('c-yt', 'https://www.youtube.com/watch?v=v1', { madeForKids: false, tags: ['launch'] }),
        target('c-tt', 'https://www.tiktok.com/@contract.tiktok/photo/7300', {
          privacyLevel: 'PUBLIC_TO_EVERYONE',
          photoCoverIndex: 1,
        }),
      ],
    } as unknown as PostDto;
    const page = postsPage(
      { actor: null, csrf: 'x', current: 'posts' },
      { posts: [post], channels, networks, statuses: ['published'], more: false },
    ).value;
    expect(page).toContain('YouTube · @main:');
    expect(page).toContain('TikTok · contract.tiktok:');
    expect(page).toContain('madeForKids: false · tags: launch');
    expect(page).toContain('privacyLevel: PUBLIC_TO_EVERYONE · photoCoverIndex: 1');
    expect(page).toContain('href="https://www.youtube.com/watch?v=v1"');
    expect(page).toContain('href="https://www.tiktok.com/@contract.tiktok/photo/7300"');
  });
});

describe('console post view: a target options line', () => {
  it('names flat options by field, nested ones by their path, and joins lists', () => {
    expect(optionsText({ visibility: 'unlisted', contentWarning: 'Spoilers' })).toBe(
      'visibility: unlisted · contentWarning: Spoilers',
    );
    expect(
      optionsText({
        topicType: 'EVENT',
        event: { title: 'Open day', schedule: { start: '2027-03-06T09:00', end: '2027-03-06' } },
        callToAction: { actionType: 'CALL' },
      }),
    ).toBe(
      'topicType: EVENT · event.title: Open day · event.schedule.start: 2027-03-06T09:00 · ' +
        'event.schedule.end: 2027-03-06 · callToAction.actionType: CALL',
    );
    expect(optionsText({ suppressEmbeds: true, appliedTags: ['12', '13'], messageThreadId: 7 })).toBe(
      'suppressEmbeds: true · appliedTags: 12, 13 · messageThreadId: 7',
    );
  });
});
