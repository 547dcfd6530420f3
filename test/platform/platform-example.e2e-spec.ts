import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { build } from 'tsup';
import * as ts from 'typescript';
import { runCli } from '../support/service-process';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { freePort, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const GUIDE = join(__dirname, '..', '..', 'docs', 'guide.md');
const CLIENT = join(__dirname, '..', '..', 'packages', 'client');

/** The fenced blocks of one language in the guide's "A complete example" subsection, in order. */
function exampleBlocks(lang: 'ts' | 'bash'): string[] {
  const guide = readFileSync(GUIDE, 'utf8');
  const start = guide.indexOf('\n### A complete example\n');
  expect(start).toBeGreaterThan(0);
  const rest = guide.slice(start + 1);
  const end = rest.slice(4).search(/\n#{2,3} /);
  const section = end < 0 ? rest : rest.slice(0, end + 4);
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```', 'g'))].map((m) => m[1]);
}

/** JSON values printed one after the other (curl -s prints no line break), with other lines skipped. */
function jsonValues(text: string): any[] {
  const values: any[] = [];
  let depth = 0;
  let from = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth > 0 && c === '"') inString = true;
    else if (c === '{') {
      if (depth++ === 0) from = i;
    } else if (c === '}' && depth > 0 && --depth === 0) values.push(JSON.parse(text.slice(from, i + 1)));
  }
  return values;
}

/** What a person does on a connect link's page for the sandbox: opens it, fills the form, is sent back. */
async function connectSandbox(url: string, name: string): Promise<URL> {
  const landing = await fetch(url);
  expect(landing.status).toBe(200);
  expect(await landing.text()).toContain('Sandbox');
  const form = await fetch(`${url}/sandbox`, { redirect: 'manual' });
  expect(form.status).toBe(200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
  const cookie = form.headers.get('set-cookie')!.split(';')[0];
  const sent = await fetch(`${url}/sandbox`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, 'credentials.name': name }).toString(),
  });
  expect(sent.status).toBe(303);
  const back = new URL(sent.headers.get('location')!);
  expect(back.searchParams.get('status')).toBe('connected');
  // The browser follows to the platform's redirect URL.
  expect((await fetch(back)).status).toBeLessThan(300);
  return back;
}

/**
 * The guide's "Building a platform on the service" example, as the guide writes it (docs/guide.md,
 * "A complete example"): the TypeScript program is taken from the guide, compiled and run against the
 * service with the client, and the curl block is run by bash, so neither can drift from the API. Both
 * create the organization with the CLI, a workspace per customer, a connect link a customer uses to
 * connect a sandbox account (channel.connected on the workspace's webhook and in its events, acting
 * with X-Workspace-Id), publish for the customer, read the usage, and erase the workspace
 * (workspace.deleted on the organization's own webhook).
 */
describe("the guide's platform example", () => {
  const receiver = new WebhookReceiver();
  let t: TestApp;

  const clientBuild = mkdtempSync(join(tmpdir(), 'platform-example-client-'));
  let client: Record<string, unknown>;
  /** The bash processes running the curl block, ended after the tests whatever happened. */
  const shells: ReturnType<typeof spawn>[] = [];

  beforeAll(async () => {
    // The client built from its source as its package builds it (tsup), into a directory of this spec's
    // own: packages/client/dist is rebuilt by other specs running beside this one.
    await build({
      entry: { index: join(CLIENT, 'src', 'index.ts') },
      format: ['cjs'],
      outDir: clientBuild,
      platform: 'node',
      target: 'node20',
      tsconfig: join(CLIENT, 'tsconfig.json'),
      config: false,
      silent: true,
    });
    client = createRequire(__filename)(join(clientBuild, 'index.js')) as Record<string, unknown>;
    await receiver.start();
    const port = await freePort();
    t = await TestApp.start({
      port,
      env: { ...FAST_PUBLISHING_ENV, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, WEBHOOK_SWEEP_INTERVAL_MS: '300' },
    });
  }, 300_000);
  afterAll(async () => {
    for (const shell of shells) if (shell.exitCode === null) shell.kill('SIGKILL');
    await t?.close();
    await receiver.stop();
    rmSync(clientBuild, { recursive: true, force: true });
  });

  const organization = async (): Promise<{ organizationId: string; workspaceId: string; key: string }> => {
    const made = await runCli(['organizations:create', '--name', 'Acme Social']);
    expect(made).toEqual({
      organizationId: expect.any(String),
      workspaceId: expect.any(String),
      key: expect.any(String),
    });
    return made;
  };
  const rowsOf = async (workspaceId: string): Promise<number> =>
    Number(
      (
        await t.dataSource.query<Array<{ n: string }>>(
          `SELECT (SELECT count(*) FROM workspaces WHERE id = $1) + (SELECT count(*) FROM posts WHERE workspace_id = $1)
                + (SELECT count(*) FROM channels WHERE workspace_id = $1) AS n`,
          [workspaceId],
        )
      )[0].n,
    );

  it('type-checks the TypeScript example against the client, strict', () => {
    const [program] = exampleBlocks('ts');
    const dir = mkdtempSync(join(tmpdir(), 'platform-example-'));
    try {
      const file = join(dir, 'platform.ts');
      writeFileSync(file, program);
      const root = join(__dirname, '..', '..');
      const checked = ts.createProgram([file], {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
        types: ['node'],
        typeRoots: [join(root, 'node_modules', '@types')],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        paths: { '@social-publishing/client': [join(CLIENT, 'src', 'index.ts')] },
      });
      const problems = ts
        .getPreEmitDiagnostics(checked)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('runs the TypeScript example: workspace, link, channel.connected, publish, usage, erasure', async () => {
    const [program] = exampleBlocks('ts');
    expect(program).toBeDefined();
    const org = await organization();

    // The program's imports become parameters: node:http, and the built client.
    const imports = [...program.matchAll(/^import \{([^}]*)\} from '([^']+)';$/gm)];
    expect(imports.map((m) => m[2])).toEqual(['node:http', '@social-publishing/client']);
    const modules: Record<string, Record<string, unknown>> = {
      'node:http': http,
      '@social-publishing/client': client,
    };
    const bound = imports.flatMap((m) =>
      m[1]
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n && !n.startsWith('type '))
        .map((n) => ({ name: n, value: modules[m[2]][n] })),
    );
    for (const b of bound)
      expect({ name: b.name, defined: b.value !== undefined }).toEqual({ name: b.name, defined: true });
    const body = ts.transpileModule(program.replace(/^import .*;$/gm, ''), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    }).outputText;
    const returned = 'return { own, workspace, hook, link, connected, recorded, post, published, usage, deleted };';
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<any>;
    const run = new AsyncFunction(...bound.map((b) => b.name), 'process', 'console', `${body}\n${returned}`);

    const logs: string[] = [];
    const port = await freePort();
    const env = { SOCIAL_PUBLISHING_API_KEY: org.key, SOCIAL_PUBLISHING_URL: `${t.baseUrl}/api`, PORT: String(port) };
    const finished = run(...bound.map((b) => b.value), { env }, { log: (...a: unknown[]) => logs.push(a.join(' ')) });
    let failed: Error | undefined;
    finished.catch((err: unknown) => (failed = err instanceof Error ? err : new Error(String(err))));

    // The customer opens the link the program hands out and connects a sandbox account.
    const url = await waitFor(
      async () => {
        if (failed) throw failed;
        return /^Send your customer to (\S+)$/.exec(logs.find((l) => l.startsWith('Send your customer')) ?? '')?.[1];
      },
      (u) => !!u,
      30_000,
    );
    expect(url).toMatch(new RegExp(`^${t.baseUrl}/connect/cl_`));
    const back = await connectSandbox(url!, 'Bakery Lindqvist on the sandbox');
    expect(back.origin).toBe(`http://localhost:${port}`);

    const r = await finished;
    // The organization's first workspace subscribed workspace.deleted; the customer's, its own events.
    expect(r.workspace).toMatchObject({ name: 'Bakery Lindqvist', externalId: 'cust_4711', metadata: { plan: 'pro' } });
    expect(r.link.providers).toEqual(['sandbox', 'mastodon', 'bluesky']);
    expect(back.searchParams.get('connectLinkId')).toBe(r.link.id);
    const channelId = back.searchParams.get('channelId');
    expect(r.connected).toEqual({
      id: expect.any(String),
      type: 'channel.connected',
      timestamp: expect.any(String),
      workspaceId: r.workspace.id,
      data: { channelId, provider: 'sandbox', workspaceId: r.workspace.id },
    });
    // The events of the workspace, read acting in it (X-Workspace-Id), hold the event the webhook brought.
    expect(r.recorded).toEqual([r.connected]);
    expect(r.post.status).not.toBe('draft');
    expect(r.published).toMatchObject({ type: 'post.published', workspaceId: r.workspace.id, data: { id: r.post.id } });
    expect(r.published.data.targets[0]).toMatchObject({ channelId, status: 'published', url: expect.any(String) });
    expect(r.usage).toMatchObject({
      workspaceId: r.workspace.id,
      postsCreated: 1,
      targetsPublished: 1,
      targetsFailed: 0,
      byNetwork: { sandbox: { published: 1, failed: 0 } },
    });
    expect(r.deleted).toMatchObject({
      type: 'workspace.deleted',
      workspaceId: org.workspaceId,
      data: { workspaceId: r.workspace.id },
    });
    expect(logs).toEqual([
      `Send your customer to ${url}`,
      `sandbox channel ${channelId} in ${r.workspace.id}`,
      expect.stringMatching(/^published: \S+$/),
      expect.stringMatching(/^1 post\(s\), 1 published/),
      `erased ${r.workspace.id}`,
    ]);
    expect(await rowsOf(r.workspace.id)).toBe(0);
    // The organization's own workspace saw none of the customer's events.
    const own = await t.request('GET', '/api/events?type=channel.connected', { key: org.key });
    expect(own.body.data).toEqual([]);
  }, 120_000);

  it('runs the curl block: the same steps, acting with X-Workspace-Id', async () => {
    const blocks = exampleBlocks('bash');
    expect(blocks[0]).toContain('organizations:create');
    const script = blocks.find((b) => b.includes('curl'))!;
    const org = await organization();
    const hooks = receiver.url('').replace(/\/$/, '');
    const wait = '# ... once the customer has connected';
    expect(script).toContain(wait);
    const runnable = script
      .replace(/^BASE=.*$/m, `BASE=${t.baseUrl}/api`)
      .replace(/^K=.*$/m, `K=${org.key}`)
      .replace(/^HOOKS=.*$/m, `HOOKS=${hooks}`)
      // Where the reader waits for the customer, the script waits for this spec to say they have connected.
      .replace(wait, `read -r _\n${wait}`);
    expect(runnable).not.toMatch(/^(BASE|K|HOOKS)=.*(localhost:3000|spk_live_\.\.\.|your-product)/m);

    // --norc: a bash that believes a remote shell started it (SSH_CLIENT set, as under some CI runners)
    // reads /etc/bash.bashrc even when not interactive, whose unset PS1 then fails under -u.
    const bash = spawn('bash', ['--norc', '-euo', 'pipefail', '-c', runnable], { stdio: ['pipe', 'pipe', 'pipe'] });
    shells.push(bash);
    let out = '';
    let err = '';
    bash.stdout.on('data', (c: Buffer) => (out += c.toString()));
    bash.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => bash.on('close', resolve));

    const url = await waitFor(
      async () => {
        if (bash.exitCode !== null) throw new Error(`the curl block stopped (${bash.exitCode}):\n${out}\n${err}`);
        return /(http[^\s"{}]+\/connect\/cl_[A-Za-z0-9_-]+)\n/.exec(out)?.[1];
      },
      (u) => !!u,
      30_000,
    );
    const [own, customerHook] = jsonValues(out);
    expect(own).toMatchObject({ url: `${hooks}/hooks/platform`, events: ['workspace.deleted'] });
    const w = customerHook.url.split('/').pop() as string;
    expect(customerHook).toMatchObject({ events: ['channel.connected', 'post.published', 'post.failed'] });
    const workspace = await t.request('GET', `/api/workspaces/${w}`, { key: org.key });
    expect(workspace.body).toMatchObject({ name: 'Bakery Lindqvist', externalId: 'cust_4711' });

    const back = await connectSandbox(url!, 'Bakery on the sandbox');
    expect(back.origin + back.pathname).toBe(`${hooks}/done`);
    const channelId = back.searchParams.get('channelId');
    // channel.connected: on the workspace's webhook, signed with its secret, and in its events (X-Workspace-Id).
    const [delivered] = await receiver.waitForCount(`/hooks/${w}`, 1);
    const event = new StandardWebhook(customerHook.secret).verify(
      delivered.body,
      delivered.headers as Record<string, string>,
    );
    expect(event).toEqual({
      id: expect.any(String),
      type: 'channel.connected',
      timestamp: expect.any(String),
      workspaceId: w,
      data: { channelId, provider: 'sandbox', workspaceId: w },
    });
    const acting = await t.request('GET', '/api/events?type=channel.connected', {
      key: org.key,
      headers: { 'x-workspace-id': w },
    });
    expect(acting.body.data).toEqual([event]);
    expect((await t.request('GET', '/api/events?type=channel.connected', { key: org.key })).body.data).toEqual([]);
    bash.stdin.end('\n');

    expect({ code: await exited, err }).toEqual({ code: 0, err: '' });
    const [, , post, usage] = jsonValues(out);
    expect(post).toMatchObject({ content: 'Fresh bread at 7', targets: [expect.objectContaining({ channelId })] });
    expect(usage).toMatchObject({ workspaceId: w, postsCreated: 1 });
    expect(jsonValues(out)).toHaveLength(4); // the DELETE answers 202 with no body
    const [erased] = await receiver.waitForCount('/hooks/platform', 1);
    expect(new StandardWebhook(own.secret).verify(erased.body, erased.headers as Record<string, string>)).toMatchObject(
      {
        type: 'workspace.deleted',
        workspaceId: org.workspaceId,
        data: { workspaceId: w },
      },
    );
    expect((await t.request('GET', `/api/workspaces/${w}`, { key: org.key })).status).toBe(404);
    expect(await rowsOf(w)).toBe(0);
  }, 120_000);
});
