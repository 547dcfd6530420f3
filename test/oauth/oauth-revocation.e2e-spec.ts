import { LinkedInFake, LINKEDIN_ROUTES } from '../fakes/linkedin.fake';
import { waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { useOAuthApp } from './oauth-harness';

const ALICE = 'urn:li:person:aliceMember1';
const ACME = 'urn:li:organization:2414183';

/**
 * Disconnecting a channel revokes its authorization at the network (docs/adr/0052), through LinkedIn's
 * fake: not while another connected channel shares the grant, and never at the cost of the disconnect.
 */
describe('revocation at the network when a channel is disconnected', () => {
  const li = new LinkedInFake({
    members: [
      { sub: 'aliceMember1', name: 'Alice Example', roles: [{ organizationId: '2414183', role: 'ADMINISTRATOR' }] },
    ],
    organizations: [{ id: '2414183', localizedName: 'Acme Corp', vanityName: 'acme' }],
  });
  const h = useOAuthApp('linkedin', li);
  let t: TestApp;
  let key: string;
  beforeAll(() => ({ t, key } = h));

  const disconnect = (id: string) => t.request('DELETE', `/api/channels/${id}`, { key });
  const status = async (id: string) => (await t.request('GET', `/api/channels/${id}`, { key })).body.status;
  /** Whether LinkedIn still takes the token (its userinfo answers 200). */
  const accepted = async (token: string) =>
    (await fetch(`${li.baseUrl}/v2/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status === 200;

  it('keeps the grant while another channel shares it, and revokes it with the last one', async () => {
    const [member, page] = await h.connectTargets([ALICE, ACME]);
    const token = li.lastAccessToken;
    const before = li.revocations.length;

    expect((await disconnect(page)).status).toBe(204);
    expect(await status(page)).toBe('disconnected');
    expect(li.revocations.length).toBe(before);
    expect(await accepted(token)).toBe(true);

    expect((await disconnect(member)).status).toBe(204);
    expect(li.revocations.slice(before)).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/oauth/v2/revoke',
        form: { client_id: li.clientId, client_secret: li.clientSecret, token },
      }),
    ]);
    expect(await accepted(token)).toBe(false);
    // A second disconnect is a no-op: nothing more is sent.
    expect((await disconnect(member)).status).toBe(204);
    expect(li.revocations.length).toBe(before + 1);
  });

  it('disconnects all the same when the network fails the revocation', async () => {
    const [member] = await h.connectTargets([ALICE]);
    const token = li.lastAccessToken;
    li.failNext(1, 503, LINKEDIN_ROUTES.revoke);
    const res = await disconnect(member);
    expect(res.status).toBe(204);
    expect(await status(member)).toBe('disconnected');
    // The network never took the revocation: the token still works there, and the channel is gone here.
    expect(await accepted(token)).toBe(true);
  });

  it('revokes a grant once when its workspace is erased, whatever number of channels share it', async () => {
    const other = await t.createWorkspace();
    await h.connectTargets([ALICE, ACME], other.key);
    const token = li.lastAccessToken;
    const before = li.revocations.length;
    expect((await t.request('DELETE', `/api/workspaces/${other.workspaceId}`, { key })).status).toBe(202);
    await waitFor(
      () => t.dataSource.query('SELECT 1 FROM workspaces WHERE id = $1', [other.workspaceId]),
      (rows: unknown[]) => rows.length === 0,
      30_000,
    );
    expect(li.revocations.slice(before)).toEqual([
      expect.objectContaining({ path: '/oauth/v2/revoke', form: expect.objectContaining({ token }) }),
    ]);
    expect(await accepted(token)).toBe(false);
  });

  it('does not wait on a network that does not answer longer than the revocation budget', async () => {
    const [member] = await h.connectTargets([ALICE]);
    li.setLatency(20_000, LINKEDIN_ROUTES.revoke);
    const started = Date.now();
    try {
      expect((await disconnect(member)).status).toBe(204);
    } finally {
      li.setLatency(0, LINKEDIN_ROUTES.revoke);
    }
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await status(member)).toBe('disconnected');
  }, 30_000);
});
