import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OrganizationsService } from '../../src/auth/organizations.service';
import { TestApp } from '../support/test-app';

const run = promisify(execFile);
const PACKAGES = join(__dirname, '..', '..', 'packages');
const BIN = join(PACKAGES, 'mcp', 'dist', 'cli.js');

/** The remote server at /mcp, with the key and, when given, `X-Workspace-Id`. */
async function remote(t: TestApp, key: string, workspaceId?: string): Promise<Client> {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (workspaceId) headers['X-Workspace-Id'] = workspaceId;
  const client = new Client({ name: 'e2e-platform', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

/** `social-publishing-mcp` on stdio, with SOCIAL_PUBLISHING_WORKSPACE_ID when given. */
async function stdio(t: TestApp, key: string, workspaceId?: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: {
      PATH: process.env.PATH ?? '',
      SOCIAL_PUBLISHING_API_KEY: key,
      SOCIAL_PUBLISHING_BASE_URL: t.baseUrl,
      ...(workspaceId ? { SOCIAL_PUBLISHING_WORKSPACE_ID: workspaceId } : {}),
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'e2e-platform-stdio', version: '1.0.0' });
  await client.connect(transport);
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
 * Platforms (docs/adr/0052) through MCP: a key holding `workspaces:manage` acts in another workspace of
 * its organization with `X-Workspace-Id` on /mcp, and the stdio package sends the header when
 * SOCIAL_PUBLISHING_WORKSPACE_ID is set; another organization's workspace is refused.
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
    // Built as the package ships: the client first (the MCP package requires its build), then the bin.
    await run('npm', ['--prefix', join(PACKAGES, 'client'), 'run', 'build'], { timeout: 180_000 });
    await run('npm', ['--prefix', join(PACKAGES, 'mcp'), 'run', 'build'], { timeout: 180_000 });
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
  }, 400_000);
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

  it('acts in SOCIAL_PUBLISHING_WORKSPACE_ID through the stdio package, and is refused for a foreign one', async () => {
    const client = await stdio(t, org.key, customer);
    try {
      const listed = json(await call(client, 'list_posts'));
      expect(listed.data.map((p: { id: string }) => p.id)).toContain(customerPost);
      const made = json(
        await call(client, 'create_post', {
          content: 'Drafted on a desktop for the customer',
          channelIds: [customerChannel],
        }),
      );
      expect((await postsOf(customer)).at(-1)).toBe(made.id);
      expect(await postsOf(org.workspaceId)).toEqual([]);
    } finally {
      await client.close();
    }

    const foreign = await stdio(t, org.key, stranger.workspaceId);
    try {
      const refused = await call(foreign, 'list_posts');
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: 'NOT_FOUND' });
      expect(await postsOf(stranger.workspaceId)).toEqual([]);
    } finally {
      await foreign.close();
    }
  });
});
