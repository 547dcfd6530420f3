import { takeToken } from './token-bucket';

const cfg = { capacity: 200, perMinute: 100 };

describe('token bucket', () => {
  it('starts full and lets a burst of exactly `capacity` requests through', () => {
    let state = null;
    let allowed = 0;
    for (let i = 0; i < 250; i++) {
      const d = takeToken(state, 1_000, cfg);
      state = d.state;
      if (d.allowed) allowed++;
    }
    expect(allowed).toBe(200);
  });

  it('reports remaining whole tokens after each request', () => {
    const first = takeToken(null, 0, cfg);
    expect(first.remaining).toBe(199);
    const second = takeToken(first.state, 0, cfg);
    expect(second.remaining).toBe(198);
  });

  it('refills continuously at perMinute/60 tokens a second', () => {
    let d = takeToken(null, 0, { capacity: 1, perMinute: 60 });
    expect(d.allowed).toBe(true);
    d = takeToken(d.state, 500, { capacity: 1, perMinute: 60 });
    expect(d.allowed).toBe(false);
    expect(d.retryAfterMs).toBe(500);
    d = takeToken(d.state, 1_000, { capacity: 1, perMinute: 60 });
    expect(d.allowed).toBe(true);
  });

  it('never refills beyond capacity', () => {
    const d = takeToken({ tokens: 199, updatedAt: 0 }, 10 * 60_000, cfg);
    expect(d.remaining).toBe(199);
    expect(d.state.tokens).toBe(199);
  });

  it('puts the reset time where the bucket is full again', () => {
    // 100/min = one token every 600 ms; after one request the bucket is full 600 ms later
    const d = takeToken(null, 10_000, cfg);
    expect(d.resetAt).toBe(10_600);
    // empty bucket: 200 tokens take two minutes
    const empty = takeToken({ tokens: 0, updatedAt: 10_000 }, 10_000, cfg);
    expect(empty.allowed).toBe(false);
    expect(empty.resetAt).toBe(10_000 + 120_000);
    expect(empty.retryAfterMs).toBe(600);
  });

  it('refuses with retry-after until one token has accumulated', () => {
    const d = takeToken({ tokens: 0.5, updatedAt: 0 }, 0, cfg);
    expect(d.allowed).toBe(false);
    expect(d.retryAfterMs).toBe(300);
    expect(d.remaining).toBe(0);
  });
});
