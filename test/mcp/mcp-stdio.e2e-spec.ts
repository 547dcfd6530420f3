import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OrganizationsService } from '../../src/auth/organizations.service';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

const run = promisify(execFile);
const PACKAGES = join(__dirname, '..', '..', 'packages');
const BIN = join(PACKAGES, 'mcp', 'dist', 'cli.js');

/** `social-publishing-mcp` as a desktop agent starts it: a child process speaking MCP on stdio. */
async function startStdio(baseUrl: string, key: string, workspaceId?: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: {
      PATH: process.env.PATH ?? '',
      SOCIAL_PUBLISHING_API_KEY: key,
      SOCIAL_PUBLISHING_BASE_URL: baseUrl,
      ...(workspaceId ? { SOCIAL_PUBLISHING_WORKSPACE_ID: workspaceId } : {}),
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function json(result: CallToolResult): any {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

describe('@social-publishing/mcp: the stdio server against the running service', () => {
  let t: TestApp;
  let key: string;
  let client: Client;
  let channelId: string;

  beforeAll(async () => {
    // Built as the package ships: the client first (the MCP package requires its build), then the bin.
    await run('npm', ['--prefix', join(PACKAGES, 'client'), 'run', 'build'], { timeout: 180_000 });
    await run('npm', ['--prefix', join(PACKAGES, 'mcp'), 'run', 'build'], { timeout: 180_000 });
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV } });
    ({ key } = await t.createWorkspace());
    channelId = await t.connectChannel(key, 'sandbox', { name: 'Desktop' });
    client = await startStdio(t.baseUrl, key);
  }, 400_000);
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('lists the same tools, with the same schemas, as the remote server', async () => {
    const remote = new Client({ name: 'e2e-remote', version: '1.0.0' });
    await remote.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    const [local, hosted] = await Promise.all([client.listTools(), remote.listTools()]);
    // Neither server can tell a client that a list changed (the lists are fixed), so neither claims to.
    const capabilities = client.getServerCapabilities()!;
    expect(capabilities).toEqual(remote.getServerCapabilities());
    for (const list of ['tools', 'resources', 'prompts'] as const) {
      expect({ list, listChanged: capabilities[list]?.listChanged }).toEqual({ list, listChanged: undefined });
    }
    await remote.close();
    expect(local.tools).toEqual(hosted.tools);
    expect(local.tools).toHaveLength(12);
  });

  it('offers the same resources and prompts as the remote server, reading resources through the API', async () => {
    const remote = new Client({ name: 'e2e-remote', version: '1.0.0' });
    await remote.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const [localResources, hostedResources] = await Promise.all([client.listResources(), remote.listResources()]);
      expect(localResources.resources).toEqual(hostedResources.resources);
      expect(localResources.resources.map((r) => r.uri)).toEqual(['channels://list', 'providers://limits']);
      const [localChannels, hostedChannels] = await Promise.all([
        client.readResource({ uri: 'channels://list' }),
        remote.readResource({ uri: 'channels://list' }),
      ]);
      expect(localChannels).toEqual(hostedChannels);
      const channels = JSON.parse((localChannels.contents[0] as { text: string }).text);
      expect(channels.data.map((c: { id: string }) => c.id)).toEqual([channelId]);
      const limits = await client.readResource({ uri: 'providers://limits' });
      const providers = JSON.parse((limits.contents[0] as { text: string }).text).data;
      expect(providers.find((p: { id: string }) => p.id === 'sandbox').limits).toBeDefined();

      const [localPrompts, hostedPrompts] = await Promise.all([client.listPrompts(), remote.listPrompts()]);
      expect(localPrompts.prompts).toEqual(hostedPrompts.prompts);
      expect(localPrompts.prompts.map((p) => p.name)).toEqual(['draft_post', 'schedule_week']);
      const args = { name: 'draft_post', arguments: { brief: 'our launch' } };
      const [local, hosted] = await Promise.all([client.getPrompt(args), remote.getPrompt(args)]);
      expect(local).toEqual(hosted);
      const text = (local.messages[0].content as { text: string }).text;
      expect(text).toContain('our launch');
      expect(text).toContain('list them with list_channels');
      await expect(client.getPrompt({ name: 'schedule_week', arguments: {} })).rejects.toThrow(/theme/);
      await expect(client.readResource({ uri: 'nothing://here' })).rejects.toThrow(/Unknown resource/);
    } finally {
      await remote.close();
    }
  });

  it('validates, drafts once per idempotency key, publishes on the sandbox and reads the outcome', async () => {
    const channels = json(await call(client, 'list_channels'));
    expect(channels.data.map((c: { id: string }) => c.id)).toEqual([channelId]);
    const check = json(await call(client, 'validate_post', { content: 'x'.repeat(600), channelIds: [channelId] }));
    expect(check.valid).toBe(false);
    expect(check.problems[0].message).toMatch(/at most 500 characters/);

    const idempotencyKey = randomUUID();
    const input = { content: 'From a desktop agent', channelIds: [channelId], idempotencyKey };
    const draft = json(await call(client, 'create_post', input));
    expect(draft.status).toBe('draft');
    expect(json(await call(client, 'create_post', input)).id).toBe(draft.id);
    const list = json(await call(client, 'list_posts', { status: 'draft' }));
    expect(list.data.filter((p: { id: string }) => p.id === draft.id)).toHaveLength(1);

    json(
      await call(client, 'update_post', {
        id: draft.id,
        content: 'From a desktop agent',
        channelIds: [channelId],
        publishNow: true,
      }),
    );
    const published = await waitFor(
      async () => json(await call(client, 'get_post', { id: draft.id })),
      (p) => p.status === 'published',
    );
    expect(published.targets[0].url).toBeTruthy();
    const sandbox = await t.request('GET', `/api/channels/${channelId}/sandbox/posts`, { key });
    expect(JSON.stringify(sandbox.body)).toContain('From a desktop agent');
  });

  it('answers the API errors as tool errors with its messages', async () => {
    const result = await call(client, 'create_post', { content: 'no channels' });
    const rest = await t.request('POST', '/api/posts', { key, body: { content: 'no channels' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: 'VALIDATION_ERROR', message: rest.body.message });
    const deleted = json(await call(client, 'create_post', { content: 'Short-lived', channelIds: [channelId] }));
    expect(json(await call(client, 'delete_post', { id: deleted.id }))).toEqual({ id: deleted.id, deleted: true });
    expect((await call(client, 'get_post', { id: deleted.id })).structuredContent).toMatchObject({
      error: 'NOT_FOUND',
    });
  });

  it('is refused once its key is revoked', async () => {
    const other = await t.createWorkspace();
    const c = await startStdio(t.baseUrl, other.key);
    expect((await call(c, 'list_channels')).isError).toBeFalsy();
    expect((await t.request('DELETE', `/api/api-keys/${other.apiKeyId}`, { key: other.key })).status).toBe(204);
    const refused = await call(c, 'list_channels');
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: 'UNAUTHORIZED' });
    await c.close();
  });
  it("acts in the workspace of SOCIAL_PUBLISHING_WORKSPACE_ID (X-Workspace-Id), and is refused for another organization's", async () => {
    const organizations = t.app.get(OrganizationsService);
    const org = await organizations.create('Stdio platform');
    const stranger = await organizations.create('Stdio stranger');
    const customer = (await t.request('POST', '/api/workspaces', { key: org.key, body: { name: 'Desktop customer' } }))
      .body.id as string;
    const acting = { key: org.key, headers: { 'x-workspace-id': customer } };
    const customerChannel = (
      await t.request('POST', '/api/channels', {
        ...acting,
        body: { provider: 'sandbox', credentials: { name: 'Customer sandbox' } },
      })
    ).body.id as string;
    const postsOf = async (workspaceId: string): Promise<string[]> =>
      (
        await t.dataSource.query<Array<{ id: string }>>(
          'SELECT id FROM posts WHERE workspace_id = $1 ORDER BY created_at',
          [workspaceId],
        )
      ).map((r) => r.id);

    const c = await startStdio(t.baseUrl, org.key, customer);
    try {
      expect(json(await call(c, 'list_channels')).data.map((ch: { id: string }) => ch.id)).toEqual([customerChannel]);
      const made = json(
        await call(c, 'create_post', {
          content: 'Drafted on a desktop for the customer',
          channelIds: [customerChannel],
        }),
      );
      expect(json(await call(c, 'list_posts')).data.map((p: { id: string }) => p.id)).toEqual([made.id]);
      expect(await postsOf(customer)).toEqual([made.id]);
      expect(await postsOf(org.workspaceId)).toEqual([]);
    } finally {
      await c.close();
    }
    // Without the variable the same key works in its own workspace.
    const own = await startStdio(t.baseUrl, org.key);
    try {
      expect(json(await call(own, 'list_channels')).data).toEqual([]);
    } finally {
      await own.close();
    }
    const foreign = await startStdio(t.baseUrl, org.key, stranger.workspaceId);
    try {
      const refused = await call(foreign, 'list_posts');
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: 'NOT_FOUND' });
    } finally {
      await foreign.close();
    }
  });
});
