import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  it('expires entries and evicts the oldest when full', () => {
    let now = 0;
    const cache = new TtlCache<string>(100, 2, () => now);
    cache.set('a', '1');
    cache.set('b', '2');
    cache.set('c', '3');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('2');
    now = 150;
    expect(cache.get('c')).toBeUndefined();
    expect(cache.size).toBe(1);
  });
});
