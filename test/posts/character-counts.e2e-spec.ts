import { ProviderRegistry } from '../../src/providers/provider.registry';
import type { ChannelLimits } from '../../src/providers/social-provider.interface';
import { TestApp } from '../support/test-app';

/**
 * The composer's counts are validation's: for every network that counts its own way
 * (SocialProvider.countCharacters), a text of `n` counted characters passes a limit of `n` and is
 * refused at `content` by a limit of `n - 1`.
 */
describe('character counts are the ones validation uses', () => {
  let t: TestApp;
  const TEXTS = [
    'Plain words',
    'Waves 👋🏽 and a family 👨‍👩‍👧 here',
    'A link https://example.com/a/very/long/path/that/x/weighs/as/23 and é (composed)',
  ];

  beforeAll(async () => {
    t = await TestApp.start();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('matches validate() on every network that counts its own way', () => {
    const registry = t.app.get(ProviderRegistry);
    const checked: string[] = [];
    for (const id of registry.ids()) {
      const provider = registry.get(id);
      if (!provider.countCharacters) continue;
      checked.push(id);
      for (const text of TEXTS) {
        const n = provider.countCharacters(text);
        const limits = (max: number) =>
          ({ maxCharacters: max, maxMedia: 4, supportedMimeTypes: [] }) as unknown as ChannelLimits;
        const contentProblems = (max: number) =>
          provider.validate({ content: text, media: [] }, limits(max)).filter((p) => p.field === 'content');
        expect({ id, text, at: n, problems: contentProblems(n) }).toEqual({ id, text, at: n, problems: [] });
        expect({ id, text, below: contentProblems(n - 1).length > 0 }).toEqual({ id, text, below: true });
      }
    }
    expect(checked).toEqual(expect.arrayContaining(['x', 'bluesky', 'mastodon', 'sandbox', 'threads', 'linkedin']));
  });
});
