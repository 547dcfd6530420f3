import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { createHttpApp } from '../../src/app.factory';
import { AppRole } from '../../src/app-role';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { TestEnvironment } from './test-environment';

export { TestEnvironment } from './test-environment';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  rawBody?: string | Buffer | FormData;
}

/** The real application on a real port, with its own database and Redis prefix. */
export class TestApp {
  readonly env = new TestEnvironment();
  app!: NestFastifyApplication;
  baseUrl!: string;

  static async start(
    opts: {
      env?: Record<string, string>;
      role?: AppRole;
      /** Runs on the built app before it listens, e.g. to add a Fastify hook. */
      beforeListen?: (app: NestFastifyApplication) => void | Promise<void>;
      /** Port to listen on (see freePort), when the app must know its own address; default any. */
      port?: number;
      /** The address the app reaches its database at, from its own database's URL (e.g. through a proxy). */
      databaseUrl?: (url: string) => string;
    } = {},
  ): Promise<TestApp> {
    const t = new TestApp();
    await t.env.create(opts.env);
    if (opts.databaseUrl) process.env.DATABASE_URL = opts.databaseUrl(t.env.databaseUrl);
    t.app = await createHttpApp(opts.role ?? 'all');
    await opts.beforeListen?.(t.app);
    await t.app.listen({ port: opts.port ?? 0, host: '127.0.0.1' });
    const server = t.app.getHttpServer();
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    t.baseUrl = `${server instanceof TlsServer ? 'https' : 'http'}://127.0.0.1:${address.port}`;
    return t;
  }

  get dataSource(): DataSource {
    return this.app.get(DataSource);
  }

  /** Connects a channel over HTTP (201 new, 200 reactivated) and returns its id. */
  async connectChannel(key: string, provider: string, credentials: Record<string, string>): Promise<string> {
    const res = await this.request('POST', '/api/channels', { key, body: { provider, credentials } });
    expect([200, 201]).toContain(res.status);
    return res.body.id;
  }

  /** A workspace with a fresh key, through the same service the CLI uses. */
  async createWorkspace(
    name = `ws-${randomBytes(4).toString('hex')}`,
    limits: { perMinute?: number; burst?: number } = {},
  ) {
    const keys = this.app.get(ApiKeysService);
    const workspace = await keys.resolveWorkspace(name, true);
    const { apiKey, key } = await keys.create(workspace.id, {
      name: 'test',
      rateLimitPerMinute: limits.perMinute ?? 100_000,
      rateLimitBurst: limits.burst ?? 100_000,
    });
    return { workspaceId: workspace.id, key, apiKeyId: apiKey.id };
  }

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers['x-api-key'] = opts.key;
    let body: string | Buffer | FormData | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  async close(): Promise<void> {
    await this.app?.close();
    await this.env.destroy();
  }
}

/**
 * A port free on 127.0.0.1 right now, for an app that must know its address before it starts
 * (PUBLIC_BASE_URL and CONSOLE_URL in browser tests of the OAuth flow).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
