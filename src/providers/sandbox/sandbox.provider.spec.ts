import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  TransientProviderError,
} from '../provider.errors';
import type { PublishInput } from '../social-provider.interface';
import type { SandboxMedia, SandboxPostOptions, SandboxTimeline, SandboxTimelinePost } from './sandbox-timeline.port';
import { SandboxProvider, sandboxMetrics } from './sandbox.provider';

/** The timeline's contract in memory (the e2e spec runs the real table). */
class MemoryTimeline implements SandboxTimeline {
  readonly rows: SandboxTimelinePost[] = [];

  attempt(accountId: string, idempotencyKey: string): Promise<SandboxTimelinePost> {
    let row = this.rows.find((r) => r.accountId === accountId && r.idempotencyKey === idempotencyKey);
    if (!row) {
      row = {
        id: randomUUID(),
        accountId,
        idempotencyKey,
        attempts: 0,
        content: '',
        media: [],
        inReplyTo: null,
        options: { visibility: 'public', contentWarning: null },
        publishedAt: null,
        createdAt: new Date(),
      };
      this.rows.push(row);
    }
    row.attempts += 1;
    return Promise.resolve({ ...row });
  }

  publish(
    id: string,
    content: string,
    media: SandboxMedia[],
    inReplyTo: string | null = null,
    options: SandboxPostOptions = { visibility: 'public', contentWarning: null },
  ): Promise<SandboxTimelinePost> {
    const row = this.rows.find((r) => r.id === id)!;
    if (!row.publishedAt) Object.assign(row, { content, media, inReplyTo, options, publishedAt: new Date() });
    return Promise.resolve({ ...row });
  }

  find(accountId: string, id: string): Promise<SandboxTimelinePost | null> {
    return Promise.resolve(this.rows.find((r) => r.id === id && r.accountId === accountId && r.publishedAt) ?? null);
  }

  forgetAccount(accountId: string): Promise<void> {
    for (let i = this.rows.length - 1; i >= 0; i--) if (this.rows[i].accountId === accountId) this.rows.splice(i, 1);
    return Promise.resolve();
  }
}

describe('SandboxProvider', () => {
  const timeline = new MemoryTimeline();
  const sandbox = new SandboxProvider(timeline, { enabled: true });
  let credentials: Record<string, unknown>;

  beforeAll(async () => {
    credentials = (await sandbox.connect({ name: 'Unit' })).credentials;
  });

  const input = (content: string, idempotencyKey = randomUUID()): PublishInput => ({
    credentials,
    content,
    media: [],
    idempotencyKey,
    checkpoint: null,
    saveCheckpoint: async () => {},
    createdAt: new Date(),
  });

  it('publishes once per idempotency key', async () => {
    const key = randomUUID();
    const a = await sandbox.publish(input('hello', key));
    const b = await sandbox.publish(input('hello', key));
    expect(b.platformPostId).toBe(a.platformPostId);
    expect(timeline.rows.filter((r) => r.idempotencyKey === key)).toHaveLength(1);
  });

  it("publishes with the target's options, and the defaults when there are none", async () => {
    const shown = await sandbox.publish({
      ...input('options'),
      options: { visibility: 'unlisted', contentWarning: 'spoilers' },
    });
    const plain = await sandbox.publish(input('no options'));
    const row = (id: string) => timeline.rows.find((r) => r.id === id)!;
    expect(row(shown.platformPostId).options).toEqual({ visibility: 'unlisted', contentWarning: 'spoilers' });
    expect(row(plain.platformPostId).options).toEqual({ visibility: 'public', contentWarning: null });
  });

  it('#fail-transient fails twice per publication, then succeeds', async () => {
    const key = randomUUID();
    await expect(sandbox.publish(input('x #fail-transient', key))).rejects.toBeInstanceOf(TransientProviderError);
    await expect(sandbox.publish(input('x #fail-transient', key))).rejects.toBeInstanceOf(TransientProviderError);
    await expect(sandbox.publish(input('x #fail-transient', key))).resolves.toMatchObject({
      platformPostId: expect.any(String),
    });
  });

  it('#fail-permanent and #revoke throw the typed failures the publisher acts on', async () => {
    await expect(sandbox.publish(input('#fail-permanent'))).rejects.toBeInstanceOf(ContentRejectedError);
    await expect(sandbox.publish(input('#revoke'))).rejects.toBeInstanceOf(CredentialsRevokedError);
  });

  it('hashes the media bytes it receives', async () => {
    const bytes = Buffer.from('abc');
    const res = await sandbox.publish({
      ...input('with media'),
      media: [
        {
          id: 'm1',
          mimeType: 'image/png',
          size: 3,
          width: 1,
          height: 1,
          filename: 'a.png',
          altText: null,
          open: () => Readable.from([bytes]),
          publicUrl: () => Promise.reject(new Error('not used')),
          as: () => Promise.reject(new Error('not used')),
        },
      ],
    });
    const row = timeline.rows.find((r) => r.id === res.platformPostId)!;
    expect(row.media).toEqual([
      {
        id: 'm1',
        mimeType: 'image/png',
        size: 3,
        sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      },
    ]);
  });

  it('publishes a reply under its parent, and refuses a parent that is not on the timeline', async () => {
    const root = await sandbox.publish(input('part 1'));
    const ref = { ...root, replyRef: null };
    const reply = await sandbox.publish({ ...input('part 2'), replyTo: { root: ref, parent: ref } });
    expect(timeline.rows.find((r) => r.id === reply.platformPostId)?.inReplyTo).toBe(root.platformPostId);
    const missing = { platformPostId: randomUUID(), url: 'sandbox:posts/x', replyRef: null };
    await expect(sandbox.publish({ ...input('orphan'), replyTo: { root: missing, parent: missing } })).rejects.toThrow(
      ContentRejectedError,
    );
  });

  it('lets an account play a network without threads', async () => {
    expect((await sandbox.connect({ name: 'Flat', threads: false })).limits.threads).toBe(false);
    expect((await sandbox.connect({ name: 'Default' })).limits.threads).toBe(true);
  });

  it('refuses everything when disabled', async () => {
    const off = new SandboxProvider(timeline, { enabled: false });
    await expect(off.connect({ name: 'x' })).rejects.toBeInstanceOf(InvalidCredentialsError);
    expect(off.validate({ content: 'x', media: [] }, (await sandbox.connect({ name: 'y' })).limits)).toHaveLength(1);
    await expect(off.publish(input('x'))).rejects.toBeInstanceOf(ContentRejectedError);
  });
});

describe('sandboxMetrics', () => {
  const at = new Date('2026-11-23T10:00:00Z');
  const later = (s: number) => new Date(at.getTime() + s * 1000);

  it('is deterministic for a post and a moment', () => {
    expect(sandboxMetrics('p1', at, later(60))).toEqual(sandboxMetrics('p1', at, later(60)));
  });

  it('starts at zero and grows over time', () => {
    expect(sandboxMetrics('p1', at, at).likes).toBe(0);
    const figures = [1, 10, 100, 10_000].map((s) => sandboxMetrics('p1', at, later(s)));
    for (let i = 1; i < figures.length; i++) {
      expect(figures[i].likes!).toBeGreaterThan(figures[i - 1].likes!);
      expect(figures[i].impressions!).toBeGreaterThan(figures[i - 1].impressions!);
    }
  });
});
