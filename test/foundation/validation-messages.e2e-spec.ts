import { randomUUID } from 'node:crypto';
import { TestApp } from '../support/test-app';

/**
 * What a person reads when a JSON body is wrong. Table-driven over the served OpenAPI document: for
 * every operation with a JSON body, each required field left out answers 400 whose detail for that
 * field says it is required, and each field given a value of the wrong JSON type answers a detail that
 * names the expected type. One detail per field (the first rule that fails), in the documented shape
 * `{field, message}`, and the top-level message reads `<field> <message>`.
 */

type Schema = Record<string, any>;

interface BodyOperation {
  method: string;
  path: string;
  schema: Schema;
}

interface Detail {
  field: string;
  message: string;
}

const TYPE_WORDS: Record<string, RegExp> = {
  string: /^must be a string$/,
  integer: /^must be an integer$/,
  number: /^must be (a number|an integer)$/,
  boolean: /^must be a boolean$/,
  array: /^must be an array$/,
  object: /^must be an object$/,
};

describe('validation messages for missing and mistyped fields', () => {
  let t: TestApp;
  let key: string;
  let doc: Schema;

  beforeAll(async () => {
    t = await TestApp.start({ role: 'api' });
    ({ key } = await t.createWorkspace());
    doc = (await t.request('GET', '/api/openapi.json')).body;
  });
  afterAll(() => t.close());

  function resolve(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    for (let i = 0; s.$ref && i < 10; i++) s = doc.components.schemas[s.$ref.split('/').pop()];
    if (s.allOf?.length === 1) return resolve(s.allOf[0]);
    return s;
  }

  /** Every operation whose body is JSON with at least one field. */
  function bodyOperations(): BodyOperation[] {
    const out: BodyOperation[] = [];
    for (const [path, item] of Object.entries<Schema>(doc.paths)) {
      for (const [method, op] of Object.entries<Schema>(item)) {
        const schema = resolve(op.requestBody?.content?.['application/json']?.schema);
        if (!schema.properties || Object.keys(schema.properties).length === 0) continue;
        const params = (op.parameters ?? []).filter((p: Schema) => p.in === 'path');
        let url = `${doc.servers[0].url}${path}`;
        for (const p of params) {
          const s = resolve(p.schema);
          // A well-formed path value, so only the body is wrong.
          url = url.replace(`{${p.name}}`, s.format === 'uuid' ? randomUUID() : 'sandbox');
        }
        out.push({ method: method.toUpperCase(), path: url, schema });
      }
    }
    return out;
  }

  /** A valid value for a schema (the first of a oneOf). */
  function valid(schema: Schema): unknown {
    const s = resolve(schema.oneOf?.[0] ?? schema);
    if (s.enum) return s.enum[0];
    switch (s.type) {
      case 'object': {
        const o: Record<string, unknown> = {};
        for (const name of s.required ?? []) o[name] = valid(s.properties[name]);
        return o;
      }
      case 'array':
        return Array.from({ length: s.minItems ?? 0 }, (_, i) =>
          resolve(s.items).format === 'uuid' ? randomUUID() : `${String(valid(s.items))}${i}`,
        );
      case 'integer':
      case 'number':
        return s.minimum ?? 1;
      case 'boolean':
        return true;
      default:
        if (s.format === 'uuid') return randomUUID();
        if (s.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
        if (s.format === 'uri') return 'https://example.com/x';
        if (s.pattern === '^[0-9a-fA-F]{64}$') return 'a'.repeat(64);
        return 'text';
    }
  }

  /** A value of another JSON type than the schema's. */
  function wrongType(schema: Schema): unknown {
    return typeOf(schema) === 'string' ? 12345 : 'text';
  }

  function typeOf(schema: Schema): string {
    const s = resolve(schema);
    if (s.oneOf) return 'object';
    // Options: one closed schema per network, all objects.
    if (s.anyOf?.every((one: Schema) => typeOf(one) === 'object')) return 'object';
    return s.type ?? 'string';
  }

  /** What the detail of a mistyped field must say: the expected type (or the kind of string). */
  function typeWords(schema: Schema): RegExp {
    const s = resolve(schema);
    const type = typeOf(s);
    if (type !== 'string') return TYPE_WORDS[type];
    // A set the server's configuration decides (mimeType) is checked as a string first.
    if (s.enum) return /^must be (one of: |a string$)/;
    if (s.format === 'uuid') return /^must be a UUID$/;
    if (s.format === 'date-time') return /^must be an RFC 3339 date-time/;
    if (s.format === 'uri') return /^must be (a string|an http\(s\) URL)$/;
    // A string with a meaning of its own may name it instead (a URL, a date-time).
    return /^must be (a string|an http\(s\) URL|an RFC 3339 date-time.*)$/;
  }

  async function send(op: BodyOperation, body: unknown) {
    return t.request(op.method, op.path, { key, body });
  }

  function detailsOf(res: { status: number; body: any }, field: string): Detail[] {
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    return (res.body.details as Detail[]).filter((d) => d.field === field);
  }

  interface Case {
    op: BodyOperation;
    /** The field as details name it. */
    field: string;
    body: unknown;
    expected: RegExp;
    what: string;
  }

  /** Every case of one operation: each required field missing, each field mistyped, also one level down. */
  function casesOf(op: BodyOperation): Case[] {
    const cases: Case[] = [];
    const walk = (schema: Schema, build: (value: unknown) => unknown, prefix: string): void => {
      const s = resolve(schema);
      if (s.oneOf && s.discriminator) {
        // One variant per value of the discriminator (POST /channels: one per network).
        for (const variant of s.oneOf) walk(variant, build, prefix);
        return;
      }
      for (const [name, prop] of Object.entries<Schema>(s.properties ?? {})) {
        const field = `${prefix}${name}`;
        const base = valid(s) as Record<string, unknown>;
        if ((s.required ?? []).includes(name)) {
          const rest = { ...base };
          delete rest[name];
          cases.push({ op, field, body: build(rest), expected: /^is required$/, what: 'missing' });
        }
        cases.push({
          op,
          field,
          body: build({ ...base, [name]: wrongType(prop) }),
          expected: typeWords(prop),
          what: 'wrong type',
        });
        const p = resolve(prop);
        const items = p.type === 'array' ? resolve(p.items) : undefined;
        if (items?.type === 'object') {
          walk(items, (v) => build({ ...base, [name]: [v] }), `${field}[0].`);
        } else if (name === 'credentials' && p.type === 'object') {
          // The credentials of the variant's network (its provider is already in `base`).
          walk(p, (v) => build({ ...base, [name]: v }), `${field}.`);
        }
      }
    };
    walk(op.schema, (v) => v, '');
    return cases;
  }

  it('finds the JSON bodies of the document', () => {
    const names = bodyOperations().map((op) => `${op.method} ${op.path.replace(/[0-9a-f-]{36}/g, '{id}')}`);
    expect(names).toEqual(expect.arrayContaining(['POST /api/posts', 'POST /api/webhooks', 'PATCH /api/media/{id}']));
    expect(names.length).toBeGreaterThanOrEqual(12);
  });

  it('says a missing required field is required and a mistyped one the expected type, one detail per field', async () => {
    const cases = bodyOperations().flatMap(casesOf);
    expect(cases.length).toBeGreaterThan(60);
    const wrong: string[] = [];
    for (const c of cases) {
      const res = await send(c.op, c.body);
      const label = `${c.op.method} ${c.op.path} ${c.what} ${c.field}`;
      if (res.status !== 400 || res.body?.error !== 'VALIDATION_ERROR') {
        wrong.push(`${label}: ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      const own = (res.body.details as Detail[]).filter((d) => d.field === c.field);
      if (own.length !== 1 || !c.expected.test(own[0].message)) {
        wrong.push(`${label}: ${JSON.stringify(res.body.details)}`);
      } else if (!res.body.message.includes(`${c.field} ${own[0].message}`)) {
        wrong.push(`${label}: message ${JSON.stringify(res.body.message)}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it('answers the reported cases of POST /api/posts as a person reads them', async () => {
    const post = (body: unknown) => t.request('POST', '/api/posts', { key, body });
    const id = randomUUID();

    const noContent = await post({ channelIds: [id] });
    expect(detailsOf(noContent, 'content')).toEqual([{ field: 'content', message: 'is required' }]);
    expect(noContent.body.message).toBe('content is required');

    const numberContent = await post({ content: 5, channelIds: [id] });
    expect(numberContent.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'content must be a string',
      details: [{ field: 'content', message: 'must be a string' }],
    });

    const stringChannels = await post({ content: 'x', channelIds: id });
    expect(detailsOf(stringChannels, 'channelIds')).toEqual([{ field: 'channelIds', message: 'must be an array' }]);

    const noChannels = await post({ content: 'x', channelIds: [] });
    expect(noChannels.body.message).toBe('channelIds must contain at least 1 item');

    const twice = await post({ content: 'x', channelIds: [id, id] });
    expect(detailsOf(twice, 'channelIds')).toEqual([{ field: 'channelIds', message: 'must not contain duplicates' }]);

    const notIds = await post({ content: 'x', channelIds: ['a', 'b'] });
    expect(detailsOf(notIds, 'channelIds')).toEqual([{ field: 'channelIds', message: 'each value must be a UUID' }]);

    const both = await post({});
    expect(both.body.message).toBe('content is required; channelIds is required');

    const part = await post({ content: 'x', channelIds: [id], thread: [{}] });
    expect(detailsOf(part, 'thread[0].content')).toEqual([{ field: 'thread[0].content', message: 'is required' }]);
  });
});
