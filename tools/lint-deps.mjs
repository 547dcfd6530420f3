/**
 * `npm run lint:deps`: the import rules of .dependency-cruiser.cjs, plus the rules of the house that a
 * dependency-cruiser rule cannot express, checked on the same graph:
 *
 * - folders-are-classified: every folder of src/ is infrastructure or a feature (tools/house-layout.cjs).
 * - no-folder-cycle: no import loop between folders of src/ (src/<a>/... -> src/<b>/... -> src/<a>/...),
 *   counting type imports too; the composition root (files directly in src/) is not a folder.
 * - sql-calls-only-in-stores: outside `*.store.ts` and src/database/, no query calls (`.query(`, query
 *   builders, repositories, `runSql`, `runPrepared`, query runners, `.transaction(`, calls on an `em`).
 * - periodic-work-through-helpers: `setInterval` only in src/scheduling/ (PeriodicJobs, ProcessTicker).
 *
 * Run from the repository's root (or a copy of it: test/foundation/dependency-rules.e2e-spec.ts). Prints the
 * violations (`--json`: as JSON) and exits 1 when there is one.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { cruise, format } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const require = createRequire(import.meta.url);
const { INFRASTRUCTURE, FEATURES, TEMPORARY_EXCEPTIONS } = require('./house-layout.cjs');

const ROOT = process.cwd();
const SRC = 'src';
const asJson = process.argv.includes('--json');

/** Query calls a service must leave to its module's store (docs/adr/0010). */
const SQL_CALLS = [
  /\.query\s*(<[^;()]*>)?\s*\(/,
  /\.createQueryBuilder\s*\(/,
  /\.getRepository\s*\(/,
  /\bcreateQueryRunner\s*\(/,
  /\b(runSql|runPrepared)\s*(<[^;()]*>)?\s*\(/,
  /\.transaction\s*(<[^;()]*>)?\s*\(/,
  /\bem\.[A-Za-z]+\s*(<[^;()]*>)?\s*\(/,
];
const SQL_PLACES = [/\.store\.ts$/, /^src\/database\//];
const PERIODIC_PLACES = [/^src\/scheduling\//];

const topFolder = (path) => /^src\/([^/]+)\//.exec(path)?.[1] ?? null;
const excepted = (from, to) =>
  TEMPORARY_EXCEPTIONS.some((e) => new RegExp(e.from).test(from) && new RegExp(e.to).test(to));

/** The TypeScript sources of src/, specs excepted, as repository-relative paths with forward slashes. */
function sources(dir = SRC) {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The text with comments blanked out (line breaks kept, so line numbers hold). */
function withoutComments(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/[^\n]*/g, (c, before) => before + ' '.repeat(c.length - before.length));
}

function grepRule(rule, patterns, allowedPlaces, files) {
  const found = [];
  for (const file of files) {
    if (allowedPlaces.some((p) => p.test(file))) continue;
    const lines = withoutComments(readFileSync(join(ROOT, file), 'utf8')).split('\n');
    lines.forEach((line, i) => {
      const hit = patterns.find((p) => p.test(line));
      if (hit) found.push({ rule, from: `${file}:${i + 1}`, to: line.trim().slice(0, 120) });
    });
  }
  return found;
}

function unclassifiedFolders() {
  const known = new Set([...INFRASTRUCTURE, ...FEATURES]);
  return readdirSync(join(ROOT, SRC))
    .filter((name) => statSync(join(ROOT, SRC, name)).isDirectory() && !known.has(name))
    .map((name) => ({
      rule: 'folders-are-classified',
      from: `${SRC}/${name}/`,
      to: 'neither infrastructure nor a feature in tools/house-layout.cjs',
    }));
}

/** Strongly connected components of the folder graph with more than one folder (Tarjan). */
function folderCycles(modules) {
  const edges = new Map(); // "a>b" -> example "from -> to"
  const graph = new Map();
  for (const m of modules) {
    const a = topFolder(m.source);
    if (!a) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    for (const d of m.dependencies) {
      const b = topFolder(d.resolved);
      if (!b || a === b || excepted(m.source, d.resolved)) continue;
      graph.get(a).add(b);
      if (!graph.has(b)) graph.set(b, new Set());
      if (!edges.has(`${a}>${b}`)) edges.set(`${a}>${b}`, `${m.source} → ${d.resolved}`);
    }
  }
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((folders) => ({
    rule: 'no-folder-cycle',
    from: folders.join(' ⇄ '),
    to: folders
      .flatMap((a) =>
        folders.filter((b) => edges.has(`${a}>${b}`)).map((b) => `${a} → ${b} (${edges.get(`${a}>${b}`)})`),
      )
      .join('; '),
  }));
}

const options = await extractDepcruiseOptions(`.${sep}.dependency-cruiser.cjs`);
const tsConfig = extractTSConfig(join(ROOT, 'tsconfig.json'));
const cruised = await cruise([SRC], { ...options, outputType: 'json' }, {}, { tsConfig });
const result = typeof cruised.output === 'string' ? JSON.parse(cruised.output) : cruised.output;

const files = sources();
const violations = [
  ...result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to })),
  ...unclassifiedFolders(),
  ...folderCycles(result.modules),
  ...grepRule('sql-calls-only-in-stores', SQL_CALLS, SQL_PLACES, files),
  ...grepRule('periodic-work-through-helpers', [/\bsetInterval\s*\(/], PERIODIC_PLACES, files),
];

if (asJson) {
  process.stdout.write(`${JSON.stringify({ violations }, null, 2)}\n`);
} else {
  const reported = result.summary.violations.length;
  if (reported > 0) process.stdout.write((await format(result, { outputType: 'err' })).output);
  for (const v of violations.slice(reported)) process.stdout.write(`  error ${v.rule}: ${v.from} → ${v.to}\n`);
  process.stdout.write(
    violations.length === 0
      ? `✔ house rules: no violation (${result.summary.totalCruised} modules; ${files.length} files checked for ` +
          `query calls and timers; no import loop between the ${FEATURES.length + INFRASTRUCTURE.length} folders)\n`
      : `\n✘ ${violations.length} violation(s) of the house rules (tools/lint-deps.mjs, .dependency-cruiser.cjs)\n`,
  );
}
process.exitCode = violations.length === 0 ? 0 : 1;
