import { ApiKeysService } from '../../src/auth/api-keys.service';
import { UsersService } from '../../src/users/users.service';
import { ConsoleClient } from '../support/console-client';
import { TestApp } from '../support/test-app';

describe('console sessions', () => {
  let t: TestApp;
  let workspaceId: string;
  let users: UsersService;

  const join = async (email: string, role: 'owner' | 'member') => {
    const { url } = await users.createLink('invitation', workspaceId, email, role);
    const path = new URL(url).pathname + new URL(url).search;
    const c = new ConsoleClient(t.baseUrl);
    const res = await c.submit(path, '/console/invitations/accept', {
      token: new URL(url).searchParams.get('token')!,
      password: `${email} password`,
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/console/keys');
    return c;
  };

  const sessionRow = async (c: ConsoleClient) => {
    const token = /sps_session=([^;]+)/.exec(c.cookieHeader)![1];
    const { createHash } = await import('node:crypto');
    return createHash('sha256').update(decodeURIComponent(token)).digest('hex');
  };

  beforeAll(async () => {
    t = await TestApp.start();
    users = t.app.get(UsersService);
    workspaceId = (await t.app.get(ApiKeysService).resolveWorkspace('sessions-ws', true)).id;
  });
  afterAll(() => t.close());

  it('stores only a hash of the session token', async () => {
    const c = await join('hash@example.com', 'owner');
    const token = decodeURIComponent(/sps_session=([^;]+)/.exec(c.cookieHeader)![1]);
    const rows = await t.dataSource.query('SELECT token_hash FROM console_sessions');
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows.map((r: { token_hash: string }) => r.token_hash)).toContain(await sessionRow(c));
  });

  it('ends a session after idle time and after its absolute lifetime', async () => {
    const idle = await join('idle@example.com', 'owner');
    expect((await idle.request('GET', '/console/keys')).status).toBe(200);
    await t.dataSource.query(
      `UPDATE console_sessions SET last_seen_at = now() - interval '2 hours' WHERE token_hash = $1`,
      [await sessionRow(idle)],
    );
    const afterIdle = await idle.request('GET', '/console/keys');
    expect(afterIdle.status).toBe(303);
    expect(afterIdle.location).toBe('/console/login');

    const old = await join('old@example.com', 'owner');
    await t.dataSource.query(
      `UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1`,
      [await sessionRow(old)],
    );
    expect((await old.request('GET', '/console/keys')).status).toBe(303);
  });

  it('signing out revokes the session: the old cookie no longer works', async () => {
    const c = await join('out@example.com', 'member');
    const cookie = c.cookieHeader;
    const out = await c.submit('/console/keys', '/console/logout', {});
    expect(out.status).toBe(303);
    const replay = await fetch(`${t.baseUrl}/console/keys`, { headers: { cookie }, redirect: 'manual' });
    expect(replay.status).toBe(303);
  });

  it('a removed member loses access at once; the last owner can be neither demoted nor removed', async () => {
    const owner = await join('boss@example.com', 'owner');
    const member = await join('temp@example.com', 'member');
    const memberId = (await users.findByEmail('temp@example.com'))!.id;
    const removed = await owner.submit('/console/members', `/console/members/${memberId}/remove`, {});
    expect(removed.status).toBe(303);
    expect((await member.request('GET', '/console/keys')).status).toBe(303);

    const soloWs = (await t.app.get(ApiKeysService).resolveWorkspace('solo-ws', true)).id;
    const { url } = await users.createLink('invitation', soloWs, 'solo@example.com', 'owner');
    const solo = new ConsoleClient(t.baseUrl);
    await solo.submit(new URL(url).pathname + new URL(url).search, '/console/invitations/accept', {
      token: new URL(url).searchParams.get('token')!,
      password: 'solo owner password',
    });
    const soloId = (await users.findByEmail('solo@example.com'))!.id;
    await solo.submit('/console/members', `/console/members/${soloId}/role`, { role: 'member' });
    const page = await solo.request('GET', '/console/members');
    expect(page.text).toContain('A workspace needs an owner');
    expect((await users.membership(soloId, soloWs))!.role).toBe('owner');
  });

  it('an invitation link works once', async () => {
    const { url } = await users.createLink('invitation', workspaceId, 'once@example.com', 'member');
    const path = new URL(url).pathname + new URL(url).search;
    const token = new URL(url).searchParams.get('token')!;
    const first = new ConsoleClient(t.baseUrl);
    expect(
      (await first.submit(path, '/console/invitations/accept', { token, password: 'once password 1' })).status,
    ).toBe(303);
    const second = new ConsoleClient(t.baseUrl);
    expect((await second.request('GET', path)).status).toBe(404);
  });

  it('unknown console pages are friendly 404 pages, not the API JSON', async () => {
    const res = await new ConsoleClient(t.baseUrl).request('GET', '/console/nope');
    expect(res.status).toBe(404);
    expect(res.text).toContain('<!doctype html>');
  });
});
