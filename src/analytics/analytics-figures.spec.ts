import { emptyFigures, figuresChanged, figuresOf, sumFigures } from './analytics-figures';

const f = (likes: number | null, reposts: number | null, replies: number | null, quotes: number | null) => ({
  likes,
  reposts,
  replies,
  quotes,
  impressions: null,
});

describe('analytics figures', () => {
  it('sums non-null values and keeps a figure null when every entry has null', () => {
    expect(sumFigures([f(1, 2, 3, null), f(4, 0, 1, 2)])).toEqual(f(5, 2, 4, 2));
    expect(sumFigures([])).toEqual(emptyFigures());
  });

  it('treats a first read as a change only when a figure is non-zero', () => {
    expect(figuresChanged(null, f(0, 0, 0, null))).toBe(false);
    expect(figuresChanged(null, emptyFigures())).toBe(false);
    expect(figuresChanged(null, f(0, 1, 0, null))).toBe(true);
  });

  it('compares later reads figure by figure, null included', () => {
    expect(figuresChanged(f(1, 2, 3, null), f(1, 2, 3, null))).toBe(false);
    expect(figuresChanged(f(1, 2, 3, null), f(1, 2, 4, null))).toBe(true);
    expect(figuresChanged(f(1, 2, 3, null), f(1, 2, 3, 0))).toBe(true);
  });

  it('reads numeric strings from SQL aggregates', () => {
    expect(figuresOf({ likes: '12', reposts: null, replies: 3 })).toEqual({ ...f(12, null, 3, null) });
  });
});
