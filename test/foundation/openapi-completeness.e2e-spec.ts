import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv, { ValidateFunction } from 'ajv';

/**
 * The committed document (kept equal to what the code generates by openapi-current.e2e-spec.ts) is
 * complete enough to generate a client from and to try in Swagger UI: lists page, examples are
 * valid, errors show their own code.
 */
const ROOT = join(__dirname, '..', '..');
const raw = (): any => JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The wire contract's code for each status (written out here, independently of the code under test). */
const CODE_BY_STATUS: Record<string, string | string[]> = {
  '400': 'VALIDATION_ERROR',
  '401': 'UNAUTHORIZED',
  '403': 'FORBIDDEN',
  '404': 'NOT_FOUND',
  '405': 'METHOD_NOT_ALLOWED',
  '409': 'CONFLICT',
  '413': 'PAYLOAD_TOO_LARGE',
  '414': 'VALIDATION_ERROR',
  '415': 'UNSUPPORTED_MEDIA_TYPE',
  '416': 'RANGE_NOT_SATISFIABLE',
  '422': ['IDEMPOTENCY_KEY_REUSED', 'UNPROCESSABLE_MEDIA'],
  '429': 'RATE_LIMIT_EXCEEDED',
  '500': 'INTERNAL_ERROR',
  '503': 'SERVICE_UNAVAILABLE',
};

interface Op {
  id: string;
  method: string;
  path: string;
  op: any;
}

function operations(doc: any): Op[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ id: item[method].operationId, method, path, op: item[method] })),
  );
}

/** A media type's examples: `example`, or every `examples.*.value`. */
function examplesOf(media: any): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  if (media && 'example' in media) out.push(['example', media.example]);
  for (const [name, ex] of Object.entries<any>(media?.examples ?? {})) out.push([name, ex.value]);
  return out;
}

function makeAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat('date-time', {
    validate: (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s),
  });
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat('uri', {
    validate: (s: string) => {
      try {
        return Boolean(new URL(s).protocol);
      } catch {
        return false;
      }
    },
  });
  ajv.addFormat('binary', true);
  return ajv;
}

describe('OpenAPI document completeness', () => {
  let doc: any;
  let deref: any;
  const ajv = makeAjv();
  const validators = new Map<object, ValidateFunction>();
  const check = (schema: object, value: unknown): string | null => {
    let validate = validators.get(schema);
    if (!validate) {
      validate = ajv.compile(schema);
      validators.set(schema, validate);
    }
    return validate(value) ? null : ajv.errorsText(validate.errors);
  };

  beforeAll(async () => {
    doc = raw();
    deref = await SwaggerParser.dereference(raw());
  });

  it('documents limit and cursor on every list operation', () => {
    const lists = operations(deref).filter(({ op }) => {
      const schema = op.responses['200']?.content?.['application/json']?.schema;
      return schema?.properties?.data && schema?.properties?.nextCursor;
    });
    expect(lists.map((l) => l.id).sort()).toEqual([
      'listApiKeys',
      'listChannels',
      'listConnectLinks',
      'listEvents',
      'listPosts',
      'listSandboxPosts',
      'listWebhookDeliveries',
      'listWebhooks',
      'listWorkspaces',
    ]);
    for (const { id, op } of lists) {
      const param = (name: string) => op.parameters?.find((p: any) => p.name === name && p.in === 'query');
      expect({ id, limit: param('limit')?.schema }).toEqual({
        id,
        limit: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 20 }),
      });
      expect({ id, cursor: param('cursor')?.schema }).toEqual({
        id,
        cursor: expect.objectContaining({ type: 'string' }),
      });
      expect(param('limit').required).toBeFalsy();
      expect(param('cursor').required).toBeFalsy();
    }
  });

  it('gives every error response an example carrying the code of its status', () => {
    let checked = 0;
    for (const { id, op } of operations(deref)) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content?.['application/json'];
        if (!media?.schema?.properties?.error) continue; // health's 503 is a HealthDto
        const examples = examplesOf(media);
        expect({ id, status, examples: examples.length }).toEqual({ id, status, examples: expect.any(Number) });
        expect(examples.length).toBeGreaterThan(0);
        for (const [, value] of examples) {
          const codes = ([] as string[]).concat(CODE_BY_STATUS[status]);
          expect({ id, status, code: (value as any).error }).toEqual({
            id,
            status,
            code: codes.includes((value as any).error) ? (value as any).error : codes,
          });
          checked++;
        }
        if (status === '400') {
          for (const [, value] of examples) expect((value as any).details?.length).toBeGreaterThan(0);
        }
        if (status === '429') {
          for (const h of ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
            expect({ id, header: h, present: Boolean(response.headers?.[h]) }).toEqual({
              id,
              header: h,
              present: true,
            });
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    // Finalize's 422 shows both of its codes: an image that does not decode, a reused Idempotency-Key.
    const finalize422 = deref.paths['/media/upload/finalize'].post.responses['422'].content['application/json'];
    expect(examplesOf(finalize422).map(([, v]) => (v as any).error)).toEqual([
      'UNPROCESSABLE_MEDIA',
      'IDEMPOTENCY_KEY_REUSED',
    ]);
    // Both messages of 401 are shown; a 404 names its resource.
    const getPost = deref.paths['/posts/{id}'].get;
    expect(examplesOf(getPost.responses['401'].content['application/json']).map(([, v]) => v)).toEqual(
      expect.arrayContaining([
        { error: 'UNAUTHORIZED', message: 'Invalid API key' },
        { error: 'UNAUTHORIZED', message: 'API key required' },
      ]),
    );
    expect(getPost.responses['404'].content['application/json'].example).toEqual({
      error: 'NOT_FOUND',
      message: 'Post not found',
    });
    expect(deref.paths['/channels/{id}'].get.responses['404'].content['application/json'].example.message).toBe(
      'Channel not found',
    );
  });

  it('has only examples that validate against their schemas', () => {
    const failures: string[] = [];
    let checked = 0;
    const validateMedia = (where: string, media: any) => {
      if (!media?.schema) return;
      for (const [name, value] of examplesOf(media)) {
        checked++;
        const problem = check(media.schema, value);
        if (problem) failures.push(`${where} ${name}: ${problem}`);
      }
    };
    for (const { id, op } of operations(deref)) {
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
        validateMedia(`${id} request ${type}`, media);
      }
      for (const [status, response] of Object.entries<any>(op.responses)) {
        for (const [type, media] of Object.entries<any>(response.content ?? {})) {
          validateMedia(`${id} ${status} ${type}`, media);
        }
        for (const [name, header] of Object.entries<any>(response.headers ?? {})) {
          if (header.schema && 'example' in header.schema) {
            checked++;
            const problem = check(header.schema, header.schema.example);
            if (problem) failures.push(`${id} ${status} header ${name}: ${problem}`);
          }
        }
      }
      for (const p of op.parameters ?? []) {
        for (const value of [p.example, p.schema?.example].filter((v) => v !== undefined)) {
          checked++;
          const problem = check(p.schema, value);
          if (problem) failures.push(`${id} parameter ${p.name}: ${problem}`);
        }
      }
    }
    // Every `example` inside a component schema (a property's or a whole model's).
    const walk = (where: string, schema: any, seen: Set<object>) => {
      if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
      seen.add(schema);
      if ('example' in schema) {
        checked++;
        const problem = check(schema, schema.example);
        if (problem) failures.push(`${where}: ${problem}`);
      }
      for (const [name, child] of Object.entries<any>(schema.properties ?? {})) walk(`${where}.${name}`, child, seen);
      if (schema.items) walk(`${where}[]`, schema.items, seen);
      for (const key of ['oneOf', 'anyOf', 'allOf'])
        (schema[key] ?? []).forEach((s: any, i: number) => walk(`${where}.${key}${i}`, s, seen));
    };
    for (const [name, schema] of Object.entries<any>(deref.components.schemas)) walk(name, schema, new Set());
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(150);
  });

  it('pre-fills POST /posts with a valid body and connect with a real provider example', () => {
    for (const path of ['/posts', '/posts/validate']) {
      const media = doc.paths[path].post.requestBody.content['application/json'];
      const [first] = examplesOf(media);
      expect(first).toBeDefined();
      const body = first[1] as Record<string, unknown>;
      expect('scheduledAt' in body && 'publishNow' in body).toBe(false);
    }
    const connect = doc.paths['/channels'].post.requestBody.content['application/json'];
    const bodies = examplesOf(connect).map(([, v]) => v as any);
    expect(bodies.map((b) => b.provider)).toEqual(expect.arrayContaining(['mastodon', 'bluesky']));
    expect(JSON.stringify(doc)).not.toContain('additionalProp1');
  });

  it('describes every tag and takes info.version from package.json', () => {
    const used = new Set(operations(doc).flatMap(({ op }) => op.tags ?? []));
    const described = new Map<string, string>((doc.tags ?? []).map((t: any) => [t.name, t.description]));
    for (const tag of used)
      expect({ tag, description: described.get(tag) }).toEqual({ tag, description: expect.any(String) });
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(doc.info.version).toBe(pkg.version);
  });
});
