import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { makePng } from '../factories/png.factory';
import { MediaClient, tempMediaDir, withoutSignedUrls } from '../media/media-support';
import { FileServer } from '../support/file-server';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';

const TOOL_NAMES = [
  'list_providers',
  'list_channels',
  'validate_post',
  'create_post',
  'get_post',
  'list_posts',
  'update_post',
  'delete_post',
  'upload_media_from_url',
  'get_media',
  'get_post_analytics',
  'list_events',
];

/** The SDK's own client, connected to /mcp of the running app with this key. */
async function connect(t: TestApp, key: string, header: 'bearer' | 'x-api-key' = 'bearer'): Promise<Client> {
  const headers: Record<string, string> =
    header === 'bearer' ? { Authorization: `Bearer ${key}` } : { 'X-API-Key': key };
  const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The API JSON of a successful tool call, checking that its text is the same JSON. */
function json(result: CallToolResult): any {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
  const text = (result.content[0] as { text: string }).text;
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

describe('MCP over Streamable HTTP at /mcp', () => {
  const media = tempMediaDir();
  const files = new FileServer();
  let t: TestApp;
  let key: string;
  let client: Client;
  let channelId: string;

  beforeAll(async () => {
    await files.start();
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, MEDIA_DIR: media.dir } });
    ({ key } = await t.createWorkspace());
    channelId = await t.connectChannel(key, 'sandbox', { name: 'Agent' });
    client = await connect(t, key);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await t?.close();
    await files.stop();
    media.cleanup();
  });

  it('answers 401 with WWW-Authenticate naming the protected-resource metadata without a key', async () => {
    const res = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource"`,
    );
    expect(await res.json()).toMatchObject({ error: 'UNAUTHORIZED' });
    const wrong = await fetch(`${t.baseUrl}/mcp`, { method: 'POST', headers: { 'x-api-key': 'sk_live_nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('publishes the protected-resource metadata the 401 names (RFC 9728)', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await t.request('GET', path);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        resource: `${t.baseUrl}/mcp`,
        bearer_methods_supported: ['header'],
        scopes_supported: expect.arrayContaining(['posts:read', 'posts:write', 'media:write']),
      });
    }
  });

  it('advertises no list-change notifications: a stateless server can never send one', async () => {
    const capabilities = client.getServerCapabilities()!;
    expect(capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(capabilities.tools?.listChanged).toBeFalsy();
    expect(capabilities.resources?.listChanged).toBeFalsy();
    expect(capabilities.prompts?.listChanged).toBeFalsy();
  });

  it('is beside /api, not under it', async () => {
    expect((await t.request('POST', '/api/mcp', { key, body: {} })).status).toBe(404);
  });

  it('lists the twelve tools with JSON Schemas from the API DTOs, each naming its scope', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const create = tools.find((tool) => tool.name === 'create_post')!;
    expect(create.description).toMatch(/validate_post/);
    expect(create.description).toMatch(/posts:write/);
    expect(create.inputSchema.required).toEqual(['content', 'channelIds']);
    expect(Object.keys(create.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['content', 'channelIds', 'scheduledAt', 'publishNow', 'targets', 'idempotencyKey']),
    );
    const getPost = tools.find((tool) => tool.name === 'get_post')!;
    expect(getPost.inputSchema).toMatchObject({ required: ['id'], properties: { id: { format: 'uuid' } } });
    expect(getPost.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('also takes the key as X-API-Key', async () => {
    const other = await connect(t, key, 'x-api-key');
    const providers = json(await call(other, 'list_providers'));
    expect(providers.data.map((p: { id: string }) => p.id)).toContain('sandbox');
    await other.close();
  });

  it('lists providers and channels as the API does', async () => {
    const providers = json(await call(client, 'list_providers'));
    const rest = await t.request('GET', '/api/providers', { key });
    expect(providers).toEqual(rest.body);
    const channels = json(await call(client, 'list_channels', { limit: 10 }));
    expect(channels.data.map((c: { id: string }) => c.id)).toEqual([channelId]);
    expect(channels.data[0].limits).toBeDefined();
  });

  it('validates a post and names its problems', async () => {
    const result = json(await call(client, 'validate_post', { content: 'x'.repeat(600), channelIds: [channelId] }));
    const rest = await t.request('POST', '/api/posts/validate', {
      key,
      body: { content: 'x'.repeat(600), channelIds: [channelId] },
    });
    expect(result).toEqual(rest.body);
    expect(result.valid).toBe(false);
    expect(result.problems[0]).toMatchObject({ field: expect.stringContaining('content') });
  });

  it('answers invalid input as a tool error carrying the API message', async () => {
    const result = await call(client, 'create_post', { content: 'no channels' });
    const rest = await t.request('POST', '/api/posts', { key, body: { content: 'no channels' } });
    expect(rest.status).toBe(400);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(rest.body);
    expect((result.content[0] as { text: string }).text).toBe(`VALIDATION_ERROR: ${rest.body.message}`);
    const unknown = await call(client, 'get_post', { id: randomUUID(), colour: 'red' });
    expect(unknown.structuredContent).toMatchObject({
      error: 'VALIDATION_ERROR',
      message: 'colour is not a known field',
    });
    const missing = await call(client, 'get_post', { id: randomUUID() });
    expect(missing.structuredContent).toMatchObject({ error: 'NOT_FOUND' });
  });

  it('creates a draft once for a retried call with the same idempotency key', async () => {
    const idempotencyKey = randomUUID();
    const input = { content: 'Drafted by an agent', channelIds: [channelId], idempotencyKey };
    const first = await call(client, 'create_post', input);
    const again = await call(client, 'create_post', input);
    const post = json(first);
    expect(post.status).toBe('draft');
    expect(json(again)).toEqual(post);
    expect(first._meta).toEqual({ idempotencyKey });
    const list = json(await call(client, 'list_posts', { limit: 100 }));
    expect(list.data.filter((p: { content: string }) => p.content === 'Drafted by an agent')).toHaveLength(1);
    const reused = await call(client, 'create_post', { ...input, content: 'Something else' });
    expect(reused.structuredContent).toMatchObject({ error: 'IDEMPOTENCY_KEY_REUSED' });
    // Without a key, one is generated and returned.
    const generated = await call(client, 'create_post', { content: 'Keyless', channelIds: [channelId] });
    expect(generated._meta?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gets, updates, publishes and deletes posts, and reads events and analytics', async () => {
    const draft = json(await call(client, 'create_post', { content: 'First words', channelIds: [channelId] }));
    expect(json(await call(client, 'get_post', { id: draft.id }))).toEqual(
      (await t.request('GET', `/api/posts/${draft.id}`, { key })).body,
    );
    const updated = json(
      await call(client, 'update_post', { id: draft.id, content: 'Better words', channelIds: [channelId] }),
    );
    expect(updated.content).toBe('Better words');
    const published = json(
      await call(client, 'update_post', {
        id: draft.id,
        content: 'Better words',
        channelIds: [channelId],
        publishNow: true,
      }),
    );
    expect(['scheduled', 'publishing', 'published']).toContain(published.status);
    const done = await waitFor(
      async () => json(await call(client, 'get_post', { id: draft.id })),
      (p) => p.status === 'published',
    );
    expect(done.targets[0].url).toBeTruthy();
    const sandbox = await t.request('GET', `/api/channels/${channelId}/sandbox/posts`, { key });
    expect(JSON.stringify(sandbox.body)).toContain('Better words');
    const analytics = json(await call(client, 'get_post_analytics', { postId: draft.id }));
    expect(analytics).toEqual((await t.request('GET', `/api/analytics/posts/${draft.id}`, { key })).body);
    const events = await waitFor(
      async () => json(await call(client, 'list_events', { type: 'post.published' })),
      (page) => page.data.length > 0,
    );
    expect(events.data[0].data.postId ?? events.data[0].data.id).toBe(draft.id);
    const refused = await call(client, 'delete_post', { id: draft.id });
    expect(refused.structuredContent).toMatchObject({ error: 'CONFLICT' });
    const other = json(await call(client, 'create_post', { content: 'To delete', channelIds: [channelId] }));
    expect(json(await call(client, 'delete_post', { id: other.id }))).toEqual({ id: other.id, deleted: true });
    expect((await t.request('GET', `/api/posts/${other.id}`, { key })).status).toBe(404);
  });

  it('uploads media from a URL and reads it back', async () => {
    const url = files.put('/agent.png', { type: 'image/png', body: makePng(64, 48) });
    const item = json(await call(client, 'upload_media_from_url', { url, altText: 'A test image' }));
    expect(item).toMatchObject({ status: 'ready', mimeType: 'image/png', width: 64, height: 48 });
    const again = json(await call(client, 'get_media', { id: item.id }));
    expect(again.id).toBe(item.id);
    expect(again.altText).toBe('A test image');
    expect(item.contentUrl).toMatch(/\/api\/media\/[0-9a-f-]{36}\/content\?expires=\d+&signature=/);
  });

  it('answers the signed URLs of a ready item as the REST API does, and they serve the bytes', async () => {
    const png = makePng(40, 30);
    const api = new MediaClient(t, key);
    const init = await api.initialize({ filename: 'rest.png', mimeType: 'image/png', size: png.length });
    expect(init.status).toBe(201);
    expect((await api.chunk(init.body.id, 0, png)).status).toBe(200);
    expect((await api.finalize(init.body.id)).status).toBe(200);
    const rest = (await api.get(init.body.id)).body;
    expect(rest.contentUrl).toEqual(expect.any(String));

    const item = json(await call(client, 'get_media', { id: init.body.id }));
    expect(withoutSignedUrls(item)).toEqual(withoutSignedUrls(rest));
    expect(item.contentUrl).toEqual(expect.stringContaining(`/api/media/${init.body.id}/content?expires=`));
    expect(item.posterUrl).toBeNull(); // an image has no poster
    // No key: the signature is the authority (the URL names PUBLIC_BASE_URL; the path and query go to this app).
    const signed = new URL(item.contentUrl);
    const bytes = await fetch(`${t.baseUrl}${signed.pathname}${signed.search}`);
    expect(bytes.status).toBe(200);
    expect(Buffer.from(await bytes.arrayBuffer()).equals(png)).toBe(true);
  });

  it('reads the channels and provider limits as resources, and offers prompts', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['channels://list', 'providers://limits']);
    const limits = await client.readResource({ uri: 'providers://limits' });
    expect(JSON.parse((limits.contents[0] as { text: string }).text).data.length).toBeGreaterThan(0);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['draft_post', 'schedule_week']);
    const prompt = await client.getPrompt({ name: 'draft_post', arguments: { brief: 'our launch' } });
    expect(JSON.stringify(prompt.messages)).toContain('validate_post');
  });

  it("refuses a tool outside the key's scopes, and holds a post of a key without posts:publish for approval", async () => {
    const made = await t.request('POST', '/api/api-keys', {
      key,
      body: { name: 'agent', scopes: ['posts:read', 'posts:write', 'channels:read'] },
    });
    expect(made.status).toBe(201);
    const scoped = await connect(t, made.body.key);
    const refused = await call(scoped, 'upload_media_from_url', { url: 'http://127.0.0.1:1/x.png' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error: 'FORBIDDEN',
      message: expect.stringContaining('lacks the scope media:write'),
    });
    expect((await call(scoped, 'list_events')).structuredContent).toMatchObject({ error: 'FORBIDDEN' });
    const held = json(
      await call(scoped, 'create_post', { content: 'Needs a human', channelIds: [channelId], publishNow: true }),
    );
    expect(held.status).toBe('pending_approval');
    await scoped.close();
  });

  it("takes each tool call from the key's rate limit", async () => {
    const limited = await t.createWorkspace(undefined, { perMinute: 1, burst: 2 });
    const c = await connect(t, limited.key);
    expect((await call(c, 'list_providers')).isError).toBeFalsy();
    expect((await call(c, 'list_providers')).isError).toBeFalsy();
    const third = await call(c, 'list_providers');
    expect(third.isError).toBe(true);
    expect(third.structuredContent).toMatchObject({ error: 'RATE_LIMIT_EXCEEDED' });
    await c.close();
  });

  it('refuses a revoked key on the next call', async () => {
    const { key: doomed, apiKeyId } = await t.createWorkspace();
    const c = await connect(t, doomed);
    expect((await call(c, 'list_channels')).isError).toBeFalsy();
    expect((await t.request('DELETE', `/api/api-keys/${apiKeyId}`, { key: doomed })).status).toBe(204);
    await expect(call(c, 'list_channels')).rejects.toThrow(/401|Unauthorized|Invalid API key/i);
  });
});
