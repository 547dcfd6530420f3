import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * Each table belongs to the module that declares its entity (docs/adr/0010). dependency-cruiser
 * (`npm run lint:deps`) stops other modules from using an entity as a value (repositories, query
 * builders); this spec covers what it cannot see: table names inside SQL text. A file may name a
 * table in SQL only when it belongs to the same module (the nearest folder with a `*.module.ts`)
 * as the table's entity.
 */
const SRC = join(__dirname, '..', '..', 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The folder of the Nest module a file belongs to: its nearest ancestor holding a `*.module.ts`. */
function moduleOf(file: string): string {
  for (let dir = dirname(file); dir.startsWith(SRC); dir = dirname(dir)) {
    if (readdirSync(dir).some((name) => name.endsWith('.module.ts'))) return relative(SRC, dir) || '.';
  }
  return '.';
}

/** Tables named after SQL keywords that read or write them (keywords in capitals, as the code writes SQL). */
function tablesInSql(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+"?([a-z_][a-z0-9_]*)"?/g)) found.add(m[1]);
  return [...found];
}

describe('table ownership', () => {
  const files = filesUnder(SRC);
  const owners = new Map<string, string>();
  for (const file of files.filter((f) => f.endsWith('.entity.ts'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/@Entity\('([a-z_]+)'\)/g)) owners.set(m[1], moduleOf(file));
  }

  it('finds the entities and their owners', () => {
    expect(existsSync(SRC)).toBe(true);
    expect(owners.get('posts')).toBe('posts');
    expect(owners.get('post_targets')).toBe('posts');
    expect(owners.get('channels')).toBe('channels');
    expect(owners.get('events')).toBe('events');
    expect(owners.get('target_metrics')).toBe('analytics');
    expect(owners.size).toBeGreaterThanOrEqual(20);
  });

  it('tells a foreign table in SQL apart from the module own ones', () => {
    expect(tablesInSql('SELECT m.post_id FROM target_metrics m JOIN channels c ON c.id = m.channel_id')).toEqual([
      'target_metrics',
      'channels',
    ]);
    expect(tablesInSql('`UPDATE events SET dispatched_at = now()`; // reads from posts')).toEqual(['events']);
  });

  it('no module names another module’s table in SQL', () => {
    const violations: string[] = [];
    for (const file of files) {
      const module = moduleOf(file);
      for (const table of tablesInSql(readFileSync(file, 'utf8'))) {
        const owner = owners.get(table);
        if (owner !== undefined && owner !== module)
          violations.push(`${relative(SRC, file)} (${module}) uses ${table} (owned by ${owner})`);
      }
    }
    expect(violations).toEqual([]);
  });
});
