import { TestApp } from '../support/test-app';

/**
 * Contract fuzzing: every operation of the served OpenAPI document gets seeded, reproducible hostile
 * variants of its path, query and body (wrong types, missing and unknown fields, huge and
 * NUL-bearing strings, deep nesting, out-of-range numbers and dates, dates off the calendar, odd
 * cursors, URLs the WHATWG parser refuses, cut-off multipart bodies, broken percent-encoding, bogus
 * ids) with a valid key. No answer may be a 5xx, every 4xx has the error
 * shape, and nothing takes longer than 10 s. FUZZ_SEED and FUZZ_REQUESTS change the run.
 */

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: 'path' | 'query'; schema: Schema }>;
  body?: Schema;
  contentType?: string;
  /** The operation answers errors as an HTML page (the OAuth callback, reached by a browser). */
  htmlErrors?: boolean;
}
interface Case {
  method: string;
  url: string;
  body?: string;
  contentType?: string;
  what: string;
  htmlErrors?: boolean;
}

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 1600);
const ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RANGE_NOT_SATISFIABLE',
  'IDEMPOTENCY_KEY_REUSED',
  'UNPROCESSABLE_MEDIA',
  'RATE_LIMIT_EXCEEDED',
];

/** mulberry32: small, seeded, good enough to pick variants reproducibly. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof rng>;

/** Percent-encodes; a lone surrogate becomes its (invalid) UTF-8 bytes, which is hostile too. */
const enc = (v: unknown): string => {
  try {
    return encodeURIComponent(String(v));
  } catch {
    return '%ED%A0%80';
  }
};
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const ODD_CURSORS = [
  '',
  'x',
  '%',
  '%E0%A4%A',
  '\u0000',
  'a'.repeat(600),
  b64(['-005000-01-01T00:00:00.000Z', '00000000-0000-4000-8000-000000000000']),
  b64([new Date(-8.64e15).toISOString(), '00000000-0000-4000-8000-000000000000']),
  b64(['+275760-09-13T00:00:00.000Z', '00000000-0000-4000-8000-000000000000']),
  b64(['2026-01-01T00:00:00.123456Z', 'not-a-uuid']),
  b64(['2026-01-01T00:00:00Z']),
  b64({ a: 1 }),
  b64(null),
  b64([1e308, '00000000-0000-4000-8000-000000000000']),
  b64(['0000-01-01T00:00:00Z', '00000000-0000-4000-8000-000000000000']),
  // Off the calendar: JavaScript's Date.parse rolls them over, Postgres refuses them.
  b64(['2026-02-30T00:00:00Z', '00000000-0000-4000-8000-000000000000']),
  b64(['2026-02-29T12:00:00.000001Z', '00000000-0000-4000-8000-000000000000']),
  b64(['2026-04-31T00:00:00.000000Z', '00000000-0000-4000-8000-000000000000']),
];
const ODD_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'x'.repeat(70_000),
  '\ud800',
  '😀'.repeat(300),
  '<script>alert(1)</script>',
  "'; DROP TABLE posts; --",
  '../../etc/passwd',
  '%00',
  '${jndi:ldap://127.0.0.1:9/x}',
  '-005000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '2026-13-45T99:99:99Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999+14:00',
  '2026-12-01T09:00:00',
  '2030-02-30T00:00:00Z',
  '2030-01-01T00:00:00+23:59',
  '2030-01-01T24:00:00Z',
  'https://[fe80::1%25eth0]/x',
  'http://[::1%25lo]:4199/x',
  'http://127.0.0.1:9/x',
  'not a url',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];
const ODD_NUMBERS = [-1, 0, 1e308, -1e308, 2 ** 53 + 1, 0.5, -0, 101, 1e-320];
const ODD_VALUES: unknown[] = [
  null,
  true,
  false,
  [],
  {},
  [null],
  { a: { b: { c: 1 } } },
  ...ODD_NUMBERS,
  ...ODD_STRINGS,
];
const ODD_PATH_SEGMENTS = [
  'not-a-uuid',
  '00000000-0000-4000-8000-000000000000',
  '%E0%A4%A',
  '%',
  '%00',
  'a'.repeat(5000),
  '..%2F..%2Fetc',
  '%F0%9F%98%80',
  '1',
  '-1',
  'null',
  "'%20OR%201%3D1%20--",
];

function deepNest(depth: number, leaf: string): string {
  return rngNest(depth, leaf);
}
function rngNest(depth: number, leaf: string): string {
  return `${'{"a":['.repeat(depth)}${leaf}${']}'.repeat(depth)}`;
}

describe('contract fuzzing from the OpenAPI document', () => {
  let t: TestApp;
  let key: string;
  let doc: Schema;
  const ids: Record<string, string[]> = {};

  beforeAll(async () => {
    t = await TestApp.start({ role: 'api' });
    let workspaceId: string;
    ({ key, workspaceId } = await t.createWorkspace());
    doc = (await t.request('GET', '/api/openapi.json')).body;
    // Real resources, so variants also reach the code behind a valid id.
    const [channel] = await t.dataSource.query(
      `INSERT INTO channels (workspace_id, provider, external_id, name, handle, status, limits, connected_at)
       VALUES ($1, 'mastodon', 'fuzz@x', 'fuzz', '@fuzz', 'active', $2, now()) RETURNING id`,
      [
        workspaceId,
        JSON.stringify({ maxCharacters: 500, maxMedia: 4, maxImageBytes: 1e6, supportedMimeTypes: ['image/png'] }),
      ],
    );
    const post = await t.request('POST', '/api/posts', { key, body: { content: 'fuzz', channelIds: [channel.id] } });
    const hook = await t.request('POST', '/api/webhooks', { key, body: { url: 'http://127.0.0.1:9/hook' } });
    const media = await t.request('POST', '/api/media/upload/initialize', {
      key,
      body: { filename: 'f.png', mimeType: 'image/png', size: 100 },
    });
    ids.channel = [channel.id];
    ids.post = [post.body.id];
    ids.webhook = [hook.body.id];
    ids.media = [media.body.id];
  });
  afterAll(() => t.close());

  function resolve(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    for (let i = 0; s.$ref && i < 10; i++) s = doc.components.schemas[s.$ref.split('/').pop()];
    if (s.allOf?.length === 1) return resolve(s.allOf[0]);
    return s;
  }

  function operations(): Operation[] {
    const out: Operation[] = [];
    for (const [path, item] of Object.entries<Schema>(doc.paths)) {
      for (const [method, op] of Object.entries<Schema>(item)) {
        const params = (op.parameters ?? [])
          .filter((p: Schema) => p.in === 'path' || p.in === 'query')
          .map((p: Schema) => ({ name: p.name, in: p.in, schema: resolve(p.schema) }));
        const ok = resolve(op.responses?.['200']?.content?.['application/json']?.schema);
        if (method === 'get' && ok.properties?.nextCursor) {
          for (const name of ['limit', 'cursor']) {
            if (!params.some((p: { name: string }) => p.name === name)) {
              params.push({ name, in: 'query', schema: name === 'limit' ? { type: 'integer' } : { type: 'string' } });
            }
          }
        }
        const content = op.requestBody?.content ?? {};
        const contentType = Object.keys(content)[0];
        out.push({
          method: method.toUpperCase(),
          // Paths are relative to the server address, which ends with /api.
          path: `${doc.servers[0].url}${path}`,
          params,
          body: contentType ? resolve(content[contentType].schema) : undefined,
          contentType,
          htmlErrors: Object.entries<Schema>(op.responses ?? {}).some(
            ([status, res]) => status.startsWith('4') && res.content?.['text/html'],
          ),
        });
      }
    }
    return out;
  }

  /** A plausible value for a schema, so mutations hit one field at a time. */
  function plausible(schema: Schema, r: Rng, name = '', depth = 0): unknown {
    const s = resolve(schema.oneOf?.[r.int(schema.oneOf.length)] ?? schema.anyOf?.[0] ?? schema);
    if (s.enum) return r.pick(s.enum);
    if (s.example !== undefined && r.chance(0.5)) return s.example;
    switch (s.type) {
      case 'object': {
        const o: Record<string, unknown> = {};
        for (const [k, v] of Object.entries<Schema>(s.properties ?? {})) {
          if ((s.required ?? []).includes(k) || r.chance(0.5)) o[k] = depth < 4 ? plausible(v, r, k, depth + 1) : null;
        }
        return o;
      }
      case 'array':
        return Array.from({ length: r.int(3) + (s.minItems ?? 0) }, () => plausible(s.items ?? {}, r, name, depth + 1));
      case 'integer':
      case 'number':
        return s.minimum ?? 1;
      case 'boolean':
        return r.chance(0.5);
      default:
        if (s.format === 'uuid' || /id$/i.test(name) || /Ids$/.test(name)) return idFor(name, r);
        if (s.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
        if (s.format === 'uri' || /url/i.test(name)) return 'http://127.0.0.1:9/x';
        return 'fuzz';
    }
  }

  function idFor(name: string, r: Rng): string {
    const kind = Object.keys(ids).find((k) => name.toLowerCase().startsWith(k)) ?? r.pick(Object.keys(ids));
    return r.chance(0.7) ? r.pick(ids[kind] ?? []) : '00000000-0000-4000-8000-000000000000';
  }

  function hostile(r: Rng): unknown {
    const roll = r.int(10);
    if (roll === 0) return JSON.parse(deepNest(40, '1'));
    if (roll === 1) return Array.from({ length: 500 }, () => r.pick(ODD_STRINGS.slice(0, 4)));
    // A copy: callers add fields to it, which must not change (or make circular) the shared values.
    return structuredClone(r.pick(ODD_VALUES));
  }

  /** One mutation of a plausible body: a field wrong, missing or unknown, or the whole body odd. */
  function mutateBody(op: Operation, r: Rng): { body: string; what: string; contentType?: string } {
    const base = plausible(op.body ?? {}, r);
    const roll = r.int(12);
    if (roll === 0) return { body: r.pick(['{', '{"a":', 'nul', '[1,]', '\u0000', '']), what: 'malformed JSON' };
    if (roll === 1) return { body: deepNest(2000 + r.int(3000), '1'), what: 'deep nesting' };
    if (roll === 2) return { body: JSON.stringify(hostile(r)), what: 'odd whole body' };
    if (roll === 3) return { body: 'a=b', what: 'form body', contentType: 'application/x-www-form-urlencoded' };
    if (roll === 4) return { body: JSON.stringify(base), what: 'wrong content type', contentType: 'text/plain' };
    if (base && typeof base === 'object' && !Array.isArray(base)) {
      const o = base as Record<string, unknown>;
      const fields = Object.keys(o);
      if (roll === 5 && fields.length) {
        const f = r.pick(fields);
        delete o[f];
        return { body: JSON.stringify(o), what: `missing ${f}` };
      }
      if (roll === 6) {
        o[r.pick(['extra', '__proto__', 'constructor', 'a\u0000', ''])] = hostile(r);
        return { body: JSON.stringify(o), what: 'unknown field' };
      }
      if (fields.length) {
        const f = r.pick(fields);
        o[f] = hostile(r);
        if (o[f] && typeof o[f] === 'object' && !Array.isArray(o[f]) && r.chance(0.3)) {
          (o[f] as Record<string, unknown>)[r.pick(['k\u0000', 'x'])] = structuredClone(r.pick(ODD_VALUES));
        }
        return { body: JSON.stringify(o), what: `odd ${f}` };
      }
    }
    return { body: JSON.stringify(base), what: 'plausible' };
  }

  function buildCase(op: Operation, r: Rng): Case {
    let path = op.path;
    const what: string[] = [];
    for (const p of op.params.filter((x) => x.in === 'path')) {
      const value = r.chance(0.5)
        ? idFor(op.path.split('/')[2] ?? p.name, r)
        : (what.push(`odd ${p.name}`), r.pick(ODD_PATH_SEGMENTS));
      path = path.replace(`{${p.name}}`, value);
    }
    const query: string[] = [];
    for (const p of op.params.filter((x) => x.in === 'query')) {
      if (!r.chance(0.5)) continue;
      let value: string;
      if (p.name === 'cursor') value = enc(r.pick(ODD_CURSORS));
      else if (r.chance(0.3)) value = enc(String(plausible(p.schema, r, p.name)));
      else if (r.chance(0.2)) value = r.pick(['%', '%E0%A4%A', '%zz']);
      else value = enc(String(r.pick([...ODD_NUMBERS, ...ODD_STRINGS.filter((s) => s.length < 1000)])));
      query.push(`${p.name}=${value}`);
      what.push(`query ${p.name}`);
    }
    if (r.chance(0.1)) {
      query.push(`unknown${r.int(3)}=${enc(r.pick(ODD_STRINGS.slice(0, 4)))}`);
      what.push('unknown query');
    }
    if (r.chance(0.05)) query.push('limit=1&limit=2');
    const url = `${path}${query.length ? `?${query.join('&')}` : ''}`;
    if (!op.body) return { method: op.method, url, what: what.join(', ') || 'plain' };
    if (op.contentType === 'multipart/form-data') {
      const boundary = 'fuzz';
      const fields =
        `--${boundary}\r\nContent-Disposition: form-data; name="mediaId"\r\n\r\n${idFor('media', r)}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="chunkIndex"\r\n\r\n0\r\n`;
      const file = `--${boundary}\r\nContent-Disposition: form-data; name="chunk"; filename="c"\r\n\r\n\x89PNG`;
      const variants: Array<[string, string, string]> = [
        ['json to multipart', '{"mediaId":1}', 'application/json'],
        ['multipart cut before its closing boundary', fields + file, `multipart/form-data; boundary=${boundary}`],
        [
          'multipart cut in a part header',
          `${fields}--${boundary}\r\nContent-Disp`,
          `multipart/form-data; boundary=${boundary}`,
        ],
        ['multipart without boundary parameter', fields, 'multipart/form-data'],
        ['multipart of fields only, unterminated', fields, `multipart/form-data; boundary=${boundary}`],
      ];
      const [what, body, contentType] = r.pick(variants);
      return { method: op.method, url, body, contentType, what };
    }
    if (op.contentType !== 'application/json') {
      return {
        method: op.method,
        url,
        body: '{"mediaId":1}',
        contentType: 'application/json',
        what: 'json to multipart',
      };
    }
    const m = mutateBody(op, r);
    return {
      method: op.method,
      url,
      body: m.body,
      contentType: m.contentType ?? 'application/json',
      what: [...what, m.what].join(', '),
    };
  }

  it(`sends ${REQUESTS} hostile requests (seed ${SEED}): no 5xx, every error in the shape, none slower than 10 s`, async () => {
    const r = rng(SEED);
    const ops = operations();
    expect(ops.length).toBeGreaterThan(25);
    const cases = Array.from({ length: REQUESTS }, (_, i) => {
      const op = ops[i % ops.length];
      return { ...buildCase(op, r), htmlErrors: op.htmlErrors };
    });
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++];
        const headers: Record<string, string> = { 'x-api-key': key };
        if (c.contentType) headers['content-type'] = c.contentType;
        const started = Date.now();
        let status: number;
        let text: string;
        let html: boolean;
        try {
          const res = await fetch(`${t.baseUrl}${c.url}`, {
            method: c.method,
            headers,
            body: c.body,
            signal: AbortSignal.timeout(10_000),
          });
          status = res.status;
          html = (res.headers.get('content-type') ?? '').startsWith('text/html');
          text = await res.text();
        } catch (err) {
          failures.push(`${c.method} ${c.url.slice(0, 120)} [${c.what}]: ${(err as Error).message}`);
          continue;
        }
        const ms = Date.now() - started;
        let body: any;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        const shaped =
          status < 400 ||
          (c.htmlErrors === true && html && status < 500) ||
          (body &&
            ERROR_CODES.includes(body.error) &&
            typeof body.message === 'string' &&
            Object.keys(body).every((k) => ['error', 'message', 'details'].includes(k)) &&
            (body.details === undefined || Array.isArray(body.details)));
        // The readiness probe answers 503 with its checks when a dependency is slow or down: a report on the
        // service's state (documented), not a failure to handle the request.
        const readinessReport =
          status === 503 && c.url.startsWith('/api/health/ready') && body?.status === 'error' && body.checks;
        if (!readinessReport && (status >= 500 || !shaped || ms > 10_000)) {
          failures.push(
            `${c.method} ${c.url.slice(0, 120)} [${c.what}] -> ${status} in ${ms} ms: ${text.slice(0, 200)}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    expect(failures.slice(0, 25)).toEqual([]);
  }, 120_000);
});
