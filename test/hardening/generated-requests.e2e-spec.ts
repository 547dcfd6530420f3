import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { concretePath } from '../support/openapi-paths';
import { TestApp } from '../support/test-app';

/**
 * Requests generated from the committed OpenAPI document's request schemas (fast-check, seeded):
 *
 * - valid bodies (every keyword of the schema honoured) are never refused for a rule of the schema:
 *   an answer may still refuse them for a reason the document states in words (a channel that is not
 *   in the workspace, a time in the past), but a 400 naming a field's type, length, set, presence or an
 *   unknown field means the document allows what the service refuses;
 * - one field broken at a time (wrong type, over its length, outside its set, a required one left out,
 *   an unknown one added) is a 400 VALIDATION_ERROR naming that field.
 *
 * GENERATED_SEED and GENERATED_RUNS change the run.
 */
type Schema = Record<string, any>;
const SEED = Number(process.env.GENERATED_SEED ?? 20261129);
const RUNS = Number(process.env.GENERATED_RUNS ?? 6);

const doc = JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (s: Schema): Schema => (s.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()]) : s);

/** An arbitrary of the values a schema admits (the subset of JSON Schema our document uses). */
function arbitrary(raw: Schema): fc.Arbitrary<unknown> {
  const s = resolve(raw);
  if (s.oneOf) return fc.oneof(...(s.oneOf as Schema[]).map(arbitrary));
  if (s.anyOf) return arbitrary(s.anyOf[0]);
  if (s.allOf) return arbitrary(s.allOf[0]);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  switch (s.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return fc.integer({ min: s.minimum ?? 0, max: Math.min(s.maximum ?? 1000, 1_000_000) });
    case 'array': {
      const min = s.minItems ?? 0;
      const max = Math.max(min, Math.min(s.maxItems ?? 3, 3));
      const item = arbitrary(s.items ?? {});
      return s.uniqueItems
        ? fc.uniqueArray(item, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { minLength: min, maxLength: max });
    }
    case 'object': {
      if (!s.properties)
        return fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({ maxLength: 20 }), { maxKeys: 3 });
      const required = new Set<string>(s.required ?? []);
      const entries = Object.entries<Schema>(s.properties);
      return fc.record(Object.fromEntries(entries.map(([k, v]) => [k, arbitrary(v)])), {
        requiredKeys: entries.map(([k]) => k).filter((k) => required.has(k)),
      });
    }
    default:
      break;
  }
  if (s.type !== 'string') return fc.constant({});
  if (s.format === 'uuid') return fc.uuid();
  if (s.format === 'date-time') return fc.constant(new Date(Date.now() + 86_400_000 * 30).toISOString());
  if (s.format === 'uri') return fc.constant('https://example.org/generated');
  if (s.pattern && s.pattern !== '^[^\\u0000]*$') return fc.stringMatching(new RegExp(s.pattern));
  const minLength = s.minLength ?? 0;
  return fc.string({
    unit: 'grapheme-ascii',
    minLength,
    maxLength: Math.max(minLength, Math.min(s.maxLength ?? 30, 30)),
  });
}

interface Op {
  method: string;
  template: string;
  path: string;
  schema: Schema;
}
const operations: Op[] = Object.entries(doc.paths).flatMap(([template, item]) =>
  Object.entries(item)
    .filter(([, op]) => op.requestBody?.content?.['application/json'])
    .map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      path: `/api${concretePath(template)}`,
      schema: op.requestBody.content['application/json'].schema as Schema,
    })),
);

/** How the service words a broken schema rule: a valid body must never be answered with one of these. */
const SCHEMA_WORDS =
  /^(is not a known field|is required|must not be null|must be a JSON object|must be an? (string|boolean|integer|number|UUID|array|object)|must be (at most|at least) \d+ characters long|must be one of: |must contain (at most|at least) \d+ items?)/;

/** Bodies of one operation with one field broken, naming the field. */
function brokenBodies(op: Op, valid: Record<string, unknown>): Array<{ what: string; field: string; body: unknown }> {
  const s = resolve(op.schema.oneOf ? op.schema.oneOf[0] : op.schema);
  const out: Array<{ what: string; field: string; body: unknown }> = [
    { what: 'an unknown field', field: 'zzUnknown', body: { ...valid, zzUnknown: 1 } },
  ];
  for (const [name, raw] of Object.entries<Schema>(s.properties ?? {})) {
    const p = resolve(raw);
    const wrong = p.type === 'string' || p.enum ? 12345 : 'not-a-' + String(p.type ?? 'value');
    out.push({ what: `${name} of the wrong type`, field: name, body: { ...valid, [name]: wrong } });
    if ((s.required ?? []).includes(name)) {
      const rest = { ...valid };
      delete rest[name];
      out.push({ what: `${name} left out`, field: name, body: rest });
    }
    if (p.type === 'string' && typeof p.maxLength === 'number' && !p.enum && !p.format && p.maxLength <= 100_000) {
      out.push({ what: `${name} too long`, field: name, body: { ...valid, [name]: 'x'.repeat(p.maxLength + 1) } });
    }
  }
  return out;
}

describe('requests generated from the document', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    // A body limit that lets the longest field through, so "too long" is about the field, not the body.
    t = await TestApp.start({ env: { BODY_LIMIT_BYTES: String(1024 * 1024) } });
    ({ key } = await t.createWorkspace());
  });
  afterAll(() => t.close());

  it('finds the JSON request bodies', () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
  });

  it.each(operations)('$method $template: valid bodies are not refused for a rule of the schema', async (op) => {
    const bodies = fc.sample(arbitrary(op.schema), { seed: SEED, numRuns: RUNS });
    for (const body of bodies) {
      const res = await t.request(op.method, op.path, { key, body });
      expect(res.status).toBeLessThan(500);
      const schemaRefusals = ((res.status === 400 && res.body?.details) || []).filter(
        (d: { field: string; message: string }) => SCHEMA_WORDS.test(d.message),
      );
      expect({ body, schemaRefusals }).toEqual({ body, schemaRefusals: [] });
    }
  });

  it.each(operations)('$method $template: a body with one field broken is a 400 naming the field', async (op) => {
    const [valid] = fc.sample(arbitrary(op.schema), { seed: SEED, numRuns: 1 }) as Array<Record<string, unknown>>;
    for (const { what, field, body } of brokenBodies(op, valid)) {
      const res = await t.request(op.method, op.path, { key, body });
      const named = (res.body?.details ?? []).some((d: { field: string }) => d.field === field);
      expect({ what, status: res.status, error: res.body?.error, named }).toEqual({
        what,
        status: 400,
        error: 'VALIDATION_ERROR',
        named: true,
      });
    }
  });
});
