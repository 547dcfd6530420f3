import { CredentialsCache } from './credentials-cache';

describe('CredentialsCache', () => {
  let now = 0;
  const clock = () => now;
  const opener = (value: Record<string, unknown>) => {
    const open = jest.fn(() => structuredClone(value));
    return open;
  };

  beforeEach(() => {
    now = 1_000_000;
  });

  it('opens a stored value once and hands out the same frozen object after', () => {
    const cache = new CredentialsCache(10, 60_000, clock);
    const open = opener({ accessToken: 't', session: { did: 'x' } });
    const first = cache.get('c1', 'v1.aaa', 'channel:w:c1', open);
    const second = cache.get('c1', 'v1.aaa', 'channel:w:c1', open);
    expect(open).toHaveBeenCalledTimes(1);
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.session)).toBe(true);
    expect(() => {
      (first as Record<string, unknown>).accessToken = 'changed';
    }).toThrow(TypeError);
  });

  it('opens again when the stored value changed (refreshed, reconnected, written by another process)', () => {
    const cache = new CredentialsCache(10, 60_000, clock);
    cache.get('c1', 'v1.old', 'channel:w:c1', opener({ accessToken: 'old' }));
    const fresh = cache.get('c1', 'v1.new', 'channel:w:c1', opener({ accessToken: 'new' }));
    expect(fresh.accessToken).toBe('new');
    expect(cache.size).toBe(1);
  });

  it('opens again under other associated data (the value copied to another row must not decrypt)', () => {
    const cache = new CredentialsCache(10, 60_000, clock);
    cache.get('c1', 'v1.same', 'channel:w:c1', opener({ accessToken: 't' }));
    const open = jest.fn(() => {
      throw new Error('Unsupported state or unable to authenticate data');
    });
    expect(() => cache.get('c1', 'v1.same', 'channel:w2:c1', open)).toThrow('unable to authenticate');
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('forgets a channel whose credentials were written or revoked', () => {
    const cache = new CredentialsCache(10, 60_000, clock);
    const open = opener({ accessToken: 't' });
    cache.get('c1', 'v1.aaa', 'channel:w:c1', open);
    cache.forget('c1');
    expect(cache.size).toBe(0);
    cache.get('c1', 'v1.aaa', 'channel:w:c1', open);
    expect(open).toHaveBeenCalledTimes(2);
  });

  it('drops entries idle longer than the limit, and the least recently used beyond the size', () => {
    const cache = new CredentialsCache(2, 60_000, clock);
    cache.get('c1', 's1', 'a1', opener({ n: 1 }));
    now += 1;
    cache.get('c2', 's2', 'a2', opener({ n: 2 }));
    now += 1;
    cache.get('c1', 's1', 'a1', opener({ n: 1 })); // c1 used again: c2 is now the oldest
    now += 1;
    cache.get('c3', 's3', 'a3', opener({ n: 3 }));
    expect(cache.size).toBe(2);
    const reopenC2 = opener({ n: 2 });
    cache.get('c2', 's2', 'a2', reopenC2);
    expect(reopenC2).toHaveBeenCalledTimes(1);

    now += 60_000;
    const reopenC3 = opener({ n: 3 });
    cache.get('c3', 's3', 'a3', reopenC3);
    expect(reopenC3).toHaveBeenCalledTimes(1);
    expect(cache.size).toBe(1); // the idle ones went
  });
});
