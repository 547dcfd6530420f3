import SwaggerParser from '@apidevtools/swagger-parser';
import { TestApp } from '../support/test-app';

describe('OpenAPI document, Swagger UI and health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t.close());

  it('serves a valid OpenAPI 3.0 document at /api/openapi.json without a key', async () => {
    const res = await t.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.0\.\d+$/);
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
  });

  it('gives every operation a unique operationId, a tag, and its error responses', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    const ids: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        ids.push(op.operationId);
        expect(op.tags?.length).toBeGreaterThan(0);
        if (path === '/health' || path.startsWith('/health/')) continue; // public probes
        if (Array.isArray(op.security) && op.security.length === 0) continue; // public (OAuth callback): no key
        expect(op.responses['401']).toBeDefined();
        expect(op.responses['429'].headers['Retry-After']).toBeDefined();
        const success = Object.keys(op.responses).find((s) => s.startsWith('2'));
        expect(success).toBeDefined();
        expect(op.responses[success!].headers['X-RateLimit-Remaining']).toBeDefined();
        if (['post', 'put'].includes(method)) expect(op.requestBody).toBeDefined();
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.components.securitySchemes.ApiKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    );
  });

  it('serves Swagger UI at /api/docs with its assets', async () => {
    const page = await t.request('GET', '/api/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui');
    const init = await t.request('GET', '/api/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('X-API-Key');
    const bundle = await t.request('GET', '/api/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
  });

  it('reports health without a key', async () => {
    const res = await t.request('GET', '/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', checks: { database: 'up', redis: 'up', video: 'up' } });
  });
});

describe('DOCS_PUBLIC=false', () => {
  it('puts the document and the UI behind the key', async () => {
    const t = await TestApp.start({ env: { DOCS_PUBLIC: 'false' } });
    try {
      const { key } = await t.createWorkspace();
      expect((await t.request('GET', '/api/openapi.json')).body).toEqual({
        error: 'UNAUTHORIZED',
        message: 'API key required',
      });
      expect((await t.request('GET', '/api/docs')).status).toBe(401);
      expect((await t.request('GET', '/api/openapi.json', { key })).status).toBe(200);
    } finally {
      await t.close();
      process.env.DOCS_PUBLIC = 'true';
    }
  });
});
