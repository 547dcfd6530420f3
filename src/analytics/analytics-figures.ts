/** The engagement figures of the API, in wire order. */
export const METRIC_KEYS = ['likes', 'reposts', 'replies', 'quotes', 'impressions'] as const;
export type MetricKey = (typeof METRIC_KEYS)[number];

/** One value per figure; null where the network does not expose it (or nothing was read yet). */
export type Figures = Record<MetricKey, number | null>;

export function emptyFigures(): Figures {
  return { likes: null, reposts: null, replies: null, quotes: null, impressions: null };
}

/** Figures of a row holding the five columns (`pg` may hand integers back as strings after SUM). */
export function figuresOf(row: Partial<Record<MetricKey, unknown>>): Figures {
  const out = emptyFigures();
  for (const key of METRIC_KEYS) {
    const v = row[key];
    out[key] = v === null || v === undefined ? null : Number(v);
  }
  return out;
}

/** Sums the non-null values of each figure; a figure is null when every entry has null for it (or there is none). */
export function sumFigures(list: Figures[]): Figures {
  const out = emptyFigures();
  for (const figures of list) {
    for (const key of METRIC_KEYS) {
      const v = figures[key];
      if (v !== null) out[key] = (out[key] ?? 0) + v;
    }
  }
  return out;
}

/**
 * Whether a read changes the stored figures. `previous` is null before the first read: the first
 * read counts as a change when any figure is non-zero (an untouched post stores no snapshot).
 */
export function figuresChanged(previous: Figures | null, next: Figures): boolean {
  if (previous === null) return METRIC_KEYS.some((k) => next[k] !== null && next[k] !== 0);
  return METRIC_KEYS.some((k) => previous[k] !== next[k]);
}
