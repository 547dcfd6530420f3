/**
 * The service as real child processes (node running compiled JavaScript, as in production), for specs about
 * several processes, signals and crashes.
 *
 * The TypeScript sources (src/, migrations/) are transpiled once, without a type check (what ts-node's
 * transpile-only does in every process), into node_modules/.cache/sps-service/<hash of the sources>/, reused by
 * every spec and every run while the sources are unchanged: each process then starts in a second or two instead
 * of compiling the whole application itself.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'sps-service');
const SOURCE_DIRS = ['src', 'migrations'];
const DAY_MS = 24 * 3600 * 1000;

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      // Declaration files (.d.ts) describe modules and emit nothing.
      else if (entry.name.endsWith('.ts') && !/\.(spec|d)\.ts$/.test(entry.name)) out.push(path);
    }
  };
  for (const dir of SOURCE_DIRS) walk(join(ROOT, dir));
  return out.sort();
}

/**
 * The directory of the compiled service (its `src/main.js`, `src/cli.js`), built when the sources changed
 * since the last build. Concurrent builders (parallel spec files) each write a temporary directory and rename
 * it into place; the first one wins, the others drop theirs.
 */
export function compiledService(): string {
  const files = sourceFiles();
  const hash = createHash('sha256')
    .update(ts.version)
    .update(readFileSync(join(ROOT, 'tsconfig.json')));
  for (const file of files) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  const dir = join(CACHE, hash.digest('hex').slice(0, 16));
  if (existsSync(join(dir, 'src', 'main.js'))) return dir;

  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, ROOT);
  const compilerOptions: ts.CompilerOptions = { ...options, sourceMap: false, inlineSourceMap: true, noEmit: false };
  const building = `${dir}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  for (const file of files) {
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file });
    const target = join(building, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  copyFileSync(join(ROOT, 'package.json'), join(building, 'package.json')); // read by src/docs/openapi.ts
  try {
    renameSync(building, dir);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another spec built the same sources first
  }
  pruneOldBuilds(dir);
  return dir;
}

/** Builds of sources nobody has used for a day go; a build in use by a running spec is recent. */
function pruneOldBuilds(keep: string): void {
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    if (path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > DAY_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
  }
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One process of the service: `node <build>/src/main.js` in the role and environment given. */
export class ServiceProcess {
  /** The last lines the process wrote (stdout and stderr), for failure messages. */
  readonly output: string[] = [];
  readonly exit: Promise<ExitStatus>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    /** `http://127.0.0.1:<port>` for a process that serves HTTP. */
    readonly baseUrl: string | undefined,
    /** The heartbeat file of a worker (it exists once the worker has started). */
    readonly heartbeatFile: string | undefined,
  ) {
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        this.output.push(line.length > 2_000 ? `${line.slice(0, 2_000)}...` : line);
        if (this.output.length > 200) this.output.shift();
      }
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /**
   * Starts `node <build>/src/main.js`. The environment is this process's (a spec's TestEnvironment has set the
   * database, Redis prefix and test defaults there) plus `env`; an `api` or `all` process listens on a free
   * port of 127.0.0.1, a worker gets a heartbeat file of its own.
   */
  static async start(
    name: string,
    env: Record<string, string> & { APP_ROLE: 'api' | 'worker' | 'all' },
    build = compiledService(),
  ): Promise<ServiceProcess> {
    const http = env.APP_ROLE !== 'worker';
    const port = http ? (env.PORT ?? String(await freePort())) : '0';
    const heartbeatFile = http
      ? undefined
      : join(tmpdir(), `sps-heartbeat-${process.pid}-${randomBytes(4).toString('hex')}`);
    const child = spawn(process.execPath, [join(build, 'src', 'main.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        HOST: '127.0.0.1',
        PORT: port,
        ...(heartbeatFile ? { WORKER_HEARTBEAT_FILE: heartbeatFile, WORKER_HEARTBEAT_SECONDS: '1' } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(name, child, http ? `http://127.0.0.1:${port}` : undefined, heartbeatFile);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once the process serves (`/api/health/ready` answers 200) or, for a worker, has beaten once. */
  async ready(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited during start-up:\n${this.output.join('\n')}`);
      if (await this.isReady()) return;
      if (Date.now() > deadline)
        throw new Error(`${this.name} not ready after ${timeoutMs} ms:\n${this.output.join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async isReady(): Promise<boolean> {
    if (this.heartbeatFile) return existsSync(this.heartbeatFile);
    try {
      return (await fetch(`${this.baseUrl}/api/health/ready`, { signal: AbortSignal.timeout(5_000) })).status === 200;
    } catch {
      return false;
    }
  }

  kill(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGKILL unless already gone, then removes the heartbeat file. For afterAll. */
  async stop(): Promise<void> {
    this.kill('SIGKILL');
    await this.exit;
    if (this.heartbeatFile) rmSync(this.heartbeatFile, { force: true });
  }
}

/**
 * `node` arguments that run one entry point of the compiled service (`main`, `cli`, `healthcheck`): the
 * transpiled build shared by every spec, instead of ts-node compiling the application in each process.
 */
export function compiledEntry(entry: 'main' | 'cli' | 'healthcheck'): string[] {
  return [join(compiledService(), 'src', `${entry}.js`)];
}

/** The repository's root, the working directory of the compiled service's processes. */
export const SERVICE_ROOT = ROOT;

/** Runs `node <build>/src/cli.js ...args` and parses the JSON document it prints. */
export function runCli<T = any>(
  args: string[],
  env: Record<string, string> = {},
  build = compiledService(),
): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(build, 'src', 'cli.js'), ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`cli ${args.join(' ')} failed: ${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as T);
      },
    );
  });
}
