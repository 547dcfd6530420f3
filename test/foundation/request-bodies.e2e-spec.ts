import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { concretePath } from '../support/openapi-paths';
import { TestApp } from '../support/test-app';

/**
 * Table-driven over every JSON request body of the committed OpenAPI document: `null` in each field
 * the document does not mark nullable, and bodies of the wrong JSON type, are 400 VALIDATION_ERROR
 * naming the field (or `body`), before any of them is acted on.
 */
interface Schema {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
}
interface Operation {
  requestBody?: { content: Record<string, { schema: Schema }> };
}
const doc = JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (s: Schema): Schema => {
  if (s.$ref) return resolve(doc.components.schemas[s.$ref.split('/').pop() as string]);
  if (s.allOf?.length === 1) return { ...resolve(s.allOf[0]), nullable: s.nullable };
  return s;
};

const operations = Object.entries(doc.paths).flatMap(([template, item]) =>
  Object.entries(item)
    .filter(([, op]) => op.requestBody?.content['application/json'])
    .map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      path: `/api${concretePath(template)}`,
      schema: resolve(op.requestBody!.content['application/json'].schema),
    })),
);

/** One case per field (and per field of an object or of an array's objects one level down). */
const nullCases = operations.flatMap(({ method, template, path, schema }) =>
  Object.entries(schema.properties ?? {}).flatMap(([name, raw]) => {
    const field = resolve(raw);
    const own = { method, template, path, field: name, body: { [name]: null }, nullable: field.nullable === true };
    const inner = field.type === 'array' && field.items ? resolve(field.items) : field;
    const nested = Object.entries(inner.type === 'array' ? {} : (inner.properties ?? {})).map(([sub, subRaw]) => ({
      method,
      template,
      path,
      field: inner === field ? `${name}.${sub}` : `${name}[0].${sub}`,
      body: { [name]: inner === field ? { [sub]: null } : [{ [sub]: null }] },
      nullable: resolve(subRaw).nullable === true,
    }));
    return [own, ...(field.oneOf ? [] : nested)];
  }),
);

describe('request bodies', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await TestApp.start();
    ({ key } = await t.createWorkspace());
  });
  afterAll(() => t.close());

  it('covers every JSON request body of the document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(22);
    expect(nullCases.filter((c) => !c.nullable).length).toBeGreaterThan(60);
  });

  it.each(nullCases.filter((c) => !c.nullable))(
    '$method $template refuses null in $field',
    async ({ method, path, field, body }) => {
      const res = await t.request(method, path, { key, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.details).toContainEqual({ field, message: 'must not be null' });
    },
  );

  it.each(nullCases.filter((c) => c.nullable))(
    '$method $template takes null in $field (documented nullable)',
    async ({ method, path, field, body }) => {
      const res = await t.request(method, path, { key, body });
      expect(res.body?.details ?? []).not.toContainEqual({ field, message: 'must not be null' });
    },
  );

  const wrongBodies: Array<[string, string]> = [
    ['a string', '"AAA"'],
    ['a number', '1'],
    ['an array', '[]'],
    ['null', 'null'],
    ['true', 'true'],
  ];
  const typeCases = operations.flatMap((op) => wrongBodies.map(([what, raw]) => ({ ...op, what, raw })));

  it.each(typeCases)('$method $template refuses $what as its body', async ({ method, path, raw }) => {
    const res = await t.request(method, path, { key, rawBody: raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'body must be a JSON object',
      details: [{ field: 'body', message: 'must be a JSON object' }],
    });
  });

  it('refuses null inside credentials, and a bare string to rotate a secret, changing nothing', async () => {
    const connect = await t.request('POST', '/api/channels', {
      key,
      body: { provider: 'sandbox', credentials: { name: null } },
    });
    expect(connect.status).toBe(400);
    expect(connect.body.details).toEqual([{ field: 'credentials.name', message: 'must not be null' }]);

    const hook = await t.request('POST', '/api/webhooks', {
      key,
      body: { url: 'https://example.org/hook', events: ['post.published'] },
    });
    expect(hook.status).toBe(201);
    const paused = await t.request('PUT', `/api/webhooks/${hook.body.id}`, {
      key,
      body: { url: 'https://example.org/hook', events: ['post.published'], enabled: false },
    });
    expect(paused.body.enabled).toBe(false);
    const enabledNull = await t.request('PUT', `/api/webhooks/${hook.body.id}`, {
      key,
      body: { url: 'https://example.org/hook', events: ['post.published'], enabled: null },
    });
    expect(enabledNull.status).toBe(400);
    expect((await t.request('GET', `/api/webhooks/${hook.body.id}`, { key })).body.enabled).toBe(false);

    const rotated = await t.request('POST', `/api/webhooks/${hook.body.id}/rotate-secret`, {
      key,
      rawBody: '"AAA"',
      headers: { 'content-type': 'application/json' },
    });
    expect(rotated.status).toBe(400);

    const approval = await t.request('PATCH', '/api/workspace', { key, body: { approvalRequired: null } });
    expect(approval.status).toBe(400);
    expect(approval.body.details).toEqual([{ field: 'approvalRequired', message: 'must not be null' }]);
  });
});
