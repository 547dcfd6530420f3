import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/**
 * Runs the script of `npm run lint:deps` (tools/lint-deps.mjs) on a copy of the repository's sources, with
 * `files` written into the copy; answers its exit code and violations.
 */
async function lintCopy(files: Record<string, string>): Promise<{ code: number; violations: Violation[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'sps-lint-deps-'));
  try {
    for (const entry of ['src', 'tools', 'tsconfig.json', '.dependency-cruiser.cjs', 'package.json']) {
      cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        ['tools/lint-deps.mjs', '--json'],
        { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
        (err, out, errOut) => {
          if (err && typeof err.code !== 'number') return reject(new Error(`${err.message}\n${errOut}`));
          resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout: out });
        },
      );
    });
    return { code, violations: (JSON.parse(stdout) as { violations: Violation[] }).violations };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One deliberate violation of each house rule, in a file of its own. */
const VIOLATIONS: Record<string, { rule: string; text: string }> = {
  // events/ reads a feature's DTO instead of the feature declaring its payload on EventPayloads.
  'src/events/leak.ts': {
    rule: 'events-import-no-feature',
    text: "import { PostDto } from '../posts/dto/post.dto';\nexport type Leak = PostDto;\n",
  },
  // A provider plugin reaching into a feature.
  'src/providers/mastodon/leak.ts': {
    rule: 'providers-import-no-feature',
    text: "import type { ChannelsService } from '../../channels/channels.service';\nexport type Leak = ChannelsService;\n",
  },
  // A service holding the data source (its decorator metadata keeps the import at run time).
  'src/webhooks/leak.service.ts': {
    rule: 'sql-only-in-stores',
    text:
      "import { Injectable } from '@nestjs/common';\nimport { DataSource } from 'typeorm';\n\n" +
      '@Injectable()\nexport class LeakService {\n  constructor(readonly dataSource: DataSource) {}\n}\n',
  },
  // A service running a statement on a transaction's EntityManager it was handed.
  'src/users/leak.service.ts': {
    rule: 'sql-calls-only-in-stores',
    text: "import type { EntityManager } from 'typeorm';\nexport const leak = (em: EntityManager) => em.query('SELECT 1');\n",
  },
  // Bull outside the queue files.
  'src/posts/leak.service.ts': {
    rule: 'bull-only-in-queue-files',
    text: "import type { Queue } from 'bull';\nexport type Leak = Queue;\n",
  },
  // A timer of its own instead of PeriodicJobs or ProcessTicker.
  'src/health/leak.ts': {
    rule: 'periodic-work-through-helpers',
    text: 'export const timer = setInterval(() => undefined, 60_000);\n',
  },
  // A folder that is neither infrastructure nor a feature.
  'src/newfeature/leak.ts': { rule: 'folders-are-classified', text: 'export const leak = 1;\n' },
  // media -> posts while posts -> media: a loop between two folders, though no file imports itself.
  'src/media/leak.ts': {
    rule: 'no-folder-cycle',
    text: "import type { PostsService } from '../posts/posts.service';\nexport type Leak = PostsService;\n",
  },
};

describe('npm run lint:deps (the house rules)', () => {
  // Both copies are linted side by side (each run is one process, most of it parsing the sources), and
  // each test awaits its own.
  let clean: ReturnType<typeof lintCopy>;
  let broken: ReturnType<typeof lintCopy>;
  beforeAll(() => {
    clean = lintCopy({});
    broken = lintCopy(Object.fromEntries(Object.entries(VIOLATIONS).map(([path, v]) => [path, v.text])));
    // A rejection is reported by the test that awaits it, not as an unhandled one meanwhile.
    clean.catch(() => undefined);
    broken.catch(() => undefined);
  });

  it('passes on the sources as they are', async () => {
    const { code, violations } = await clean;
    expect(violations).toEqual([]);
    expect(code).toBe(0);
  });

  it('fails on a deliberate violation of each rule, naming the rule and the file', async () => {
    const { code, violations } = await broken;
    expect(code).toBe(1);

    // Every rule but the folder loop reports the offending file (grep rules add `:line`).
    const fileOf = (v: Violation) => v.from.replace(/:\d+$/, '').replace(/\/$/, '');
    const reported = violations
      .filter((v) => v.rule !== 'no-folder-cycle')
      .map((v) => `${v.rule} ${fileOf(v)}`)
      .sort();
    const expected = Object.entries(VIOLATIONS)
      .filter(([, v]) => v.rule !== 'no-folder-cycle')
      .map(
        ([path, v]) =>
          `${v.rule} ${path.endsWith('/leak.ts') && v.rule === 'folders-are-classified' ? dirname(path) : path}`,
      )
      .sort();
    expect(reported).toEqual(expected);

    // The folder loop names the folders and the import that closes it.
    const loops = violations.filter((v) => v.rule === 'no-folder-cycle');
    expect(loops.some((v) => v.from.split(' ⇄ ').includes('media') && v.to.includes('src/media/leak.ts'))).toBe(true);
  });
});
