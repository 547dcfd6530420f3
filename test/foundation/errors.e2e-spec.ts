import { Controller, Get, Module } from '@nestjs/common';
import { TestApp } from '../support/test-app';
import { RequiredScope } from '../../src/auth/scope.decorator';

describe('error shape on every layer', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await TestApp.start({ env: { BODY_LIMIT_BYTES: '2048' } });
    ({ key } = await t.createWorkspace());
  });
  afterAll(() => t.close());

  const expectErrorShape = (body: Record<string, unknown>) => {
    expect(Object.keys(body).sort()).toEqual(expect.arrayContaining(['error', 'message']));
    expect(Object.keys(body).filter((k) => !['error', 'message', 'details'].includes(k))).toEqual([]);
    expect(JSON.stringify(body)).not.toMatch(/at \w+ \(|node_modules|SELECT|QueryFailedError|stack/i);
  };

  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const res = await t.request('GET', '/api/nope', { key });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
    expectErrorShape(res.body);
    const outside = await t.request('GET', '/elsewhere');
    expect(outside.status).toBe(404);
    expectErrorShape(outside.body);
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    const res = await t.request('POST', '/api/api-keys', {
      key,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'VALIDATION_ERROR', message: 'Malformed JSON in request body' });
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.request('POST', '/api/api-keys', { key, body: { name: 'x'.repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('PAYLOAD_TOO_LARGE');
    expectErrorShape(res.body);
  });

  it('answers a wrong content type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.request('POST', '/api/api-keys', {
      key,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
    expectErrorShape(res.body);
  });

  it('answers a bad path parameter with 400, naming the field', async () => {
    const res = await t.request('DELETE', '/api/api-keys/not-a-uuid', { key });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'id', message: 'must be a UUID' }]);
  });

  it('sends X-Request-Id on every response, echoing a sane one from the request', async () => {
    const mine = await t.request('GET', '/api/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(mine.headers.get('x-request-id')).toBe('abc-123');
    const generated = await t.request('GET', '/api/nope');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await t.request('GET', '/api/health', { headers: { 'x-request-id': 'a b\tc' } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

@Controller('boom')
class BoomController {
  @Get()
  @RequiredScope('posts:read')
  explode(): never {
    throw new Error('relation "secret_table" does not exist at SELECT * FROM secret_table');
  }
}
@Module({ controllers: [BoomController] })
class BoomModule {}

describe('an unexpected exception', () => {
  it('becomes 500 INTERNAL_ERROR with no internals', async () => {
    const { AppModule } = await import('../../src/app.module');
    const original = AppModule.forRole;
    AppModule.forRole = (role) => {
      const mod = original.call(AppModule, role);
      return { ...mod, imports: [...(mod.imports ?? []), BoomModule] };
    };
    const t = await TestApp.start();
    try {
      const { key } = await t.createWorkspace();
      const res = await t.request('GET', '/api/boom', { key });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'INTERNAL_ERROR', message: 'Internal server error' });
      expect(res.text).not.toContain('secret_table');
    } finally {
      AppModule.forRole = original;
      await t.close();
    }
  });
});
