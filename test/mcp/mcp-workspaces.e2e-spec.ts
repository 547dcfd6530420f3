import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OrganizationsService } from '../../src/auth/organizations.service';
import { TestApp } from '../support/test-app';

/** The remote server at /mcp, with the key and, when given, `X-Workspace-Id`. */
async function remote(t: TestApp, key: string, workspaceId?: string): Promise<Client> {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (workspaceId) headers['X-Workspace-Id'] = workspaceId;
  const client = new Client({ name: 'e2e-platform', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function json(result: CallToolResult): any {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

/** The raw JSON-RPC `tools/list` to /mcp, to read the HTTP answer a refused header gets. */
function rawToolsList(t: TestApp, key: string, workspaceId: string): Promise<Response> {
  return fetch(`${t.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
      'x-workspace-id': workspaceId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

/**
 * Platforms (docs/adr/0052) through the remote MCP server: a key holding `workspaces:manage` acts in
 * another workspace of its organization with `X-Workspace-Id` on /mcp; another organization's workspace
 * is refused, and so is a key without the scope. (The stdio package's SOCIAL_PUBLISHING_WORKSPACE_ID:
 * mcp-stdio.e2e-spec.ts, which builds the package.)
 */
describe('MCP acting in a workspace of the organization', () => {
  let t: TestApp;
  let org: { organizationId: string; workspaceId: string; key: string };
  let customer: string;
  let customerChannel: string;
  let customerPost: string;
  let ownChannel: string;
  let stranger: { organizationId: string; workspaceId: string; key: string };

  beforeAll(async () => {
    t = await TestApp.start();
    const organizations = t.app.get(OrganizationsService);
    org = await organizations.create('MCP Platform');
    stranger = await organizations.create('Someone else');
    customer = (
      await t.request('POST', '/api/workspaces', { key: org.key, body: { name: 'MCP customer', externalId: 'mcp-1' } })
    ).body.id;
    const acting = { key: org.key, headers: { 'x-workspace-id': customer } };
    customerChannel = (
      await t.request('POST', '/api/channels', {
        ...acting,
        body: { provider: 'sandbox', credentials: { name: 'Customer sandbox' } },
      })
    ).body.id;
    customerPost = (
      await t.request('POST', '/api/posts', {
        ...acting,
        body: { content: 'Made for the customer over REST', channelIds: [customerChannel] },
      })
    ).body.id;
    ownChannel = await t.connectChannel(org.key, 'sandbox', { name: 'Platform own sandbox' });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const postsOf = async (workspaceId: string): Promise<string[]> =>
    (
      await t.dataSource.query<Array<{ id: string }>>(
        'SELECT id FROM posts WHERE workspace_id = $1 ORDER BY created_at',
        [workspaceId],
      )
    ).map((r) => r.id);

  it('lists and creates posts in the workspace named by X-Workspace-Id on /mcp', async () => {
    const client = await remote(t, org.key, customer);
    try {
      const channels = json(await call(client, 'list_channels'));
      expect(channels.data.map((c: { id: string }) => c.id)).toEqual([customerChannel]);
      const listed = json(await call(client, 'list_posts'));
      expect(listed.data.map((p: { id: string }) => p.id)).toEqual([customerPost]);

      const made = json(
        await call(client, 'create_post', {
          content: 'Drafted by an agent for the customer',
          channelIds: [customerChannel],
        }),
      );
      expect(made.status).toBe('draft');
      expect(await postsOf(customer)).toEqual([customerPost, made.id]);
      expect(await postsOf(org.workspaceId)).toEqual([]);
      // The platform's own channel is not in the customer's workspace.
      const elsewhere = await call(client, 'create_post', { content: 'Wrong place', channelIds: [ownChannel] });
      expect(elsewhere.isError).toBe(true);
      expect(elsewhere.structuredContent).toMatchObject({ error: 'VALIDATION_ERROR' });
    } finally {
      await client.close();
    }
    // Without the header the same key is in its own workspace.
    const own = await remote(t, org.key);
    try {
      expect(json(await call(own, 'list_posts')).data).toEqual([]);
      expect(json(await call(own, 'list_channels')).data.map((c: { id: string }) => c.id)).toEqual([ownChannel]);
    } finally {
      await own.close();
    }
  });

  it("refuses another organization's workspace (404) and a key without workspaces:manage (403)", async () => {
    const foreign = await rawToolsList(t, org.key, stranger.workspaceId);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({ error: 'NOT_FOUND', message: expect.stringContaining('Workspace') });
    await expect(remote(t, org.key, stranger.workspaceId)).rejects.toThrow();

    const limited = await t.request('POST', '/api/api-keys', {
      key: org.key,
      body: { name: 'posts only', scopes: ['posts:read', 'posts:write'] },
    });
    expect(limited.status).toBe(201);
    const refused = await rawToolsList(t, limited.body.key, customer);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 'FORBIDDEN', message: expect.stringContaining('workspaces:manage') });
  });
});
