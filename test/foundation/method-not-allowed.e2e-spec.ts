import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { concretePath } from '../support/openapi-paths';
import { TestApp } from '../support/test-app';

interface Doc {
  paths: Record<string, Record<string, unknown>>;
}
const doc = JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8')) as Doc;
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const TRIED = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'QUERY', 'OPTIONS'];

const templates = Object.entries(doc.paths).map(([template, item]) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  methods: Object.keys(item)
    .filter((m) => OPERATION_METHODS.includes(m))
    .map((m) => m.toUpperCase()),
}));

/** Every documented path with every method that no documented path of that shape answers. */
const cases = templates.flatMap(({ template }) => {
  const path = concretePath(template);
  const matching = templates.filter((t) => t.pattern.test(path));
  const methods = new Set(matching.flatMap((t) => t.methods));
  if (methods.has('GET')) methods.add('HEAD');
  const allow = [...methods].sort().join(', ');
  return TRIED.filter((m) => !methods.has(m)).map((method) => ({ method, template, path, allow }));
});

describe('a method a path does not have', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await TestApp.start();
    ({ key } = await t.createWorkspace());
  });
  afterAll(() => t.close());

  it('is tried on every path of the document', () => {
    expect(new Set(cases.map((c) => c.template)).size).toBe(templates.length);
    expect(cases.length).toBeGreaterThan(150);
  });

  it.each(cases)(
    '$method $template answers 405 METHOD_NOT_ALLOWED with Allow: $allow',
    async ({ method, path, allow }) => {
      const res = await t.request(method, `/api${path}`, { key });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        error: 'METHOD_NOT_ALLOWED',
        message: `Method ${method} is not allowed on /api${path}; allowed: ${allow}`,
      });
    },
  );

  it('answers the same without a key, and with a body of any type (QUERY without a content type too)', async () => {
    const anonymous = await t.request('PATCH', '/api/posts');
    expect(anonymous.status).toBe(405);
    const query = await t.request('QUERY', '/api/posts', { key, rawBody: 'x' });
    expect(query.status).toBe(405);
    expect(query.body.error).toBe('METHOD_NOT_ALLOWED');
    const form = await t.request('PUT', '/api/webhooks', {
      key,
      rawBody: 'a=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(405);
  });

  it('still answers 404 NOT_FOUND for a path no method has', async () => {
    const res = await t.request('PATCH', '/api/nope', { key });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
    expect(res.headers.get('allow')).toBeNull();
  });
});
