import { randomUUID } from 'node:crypto';
import { nonConformance } from '../support/response-conformance';

/** The checker every e2e spec's answers go through (test/setup/response-conformance.ts) finds what it must. */
describe('response conformance check', () => {
  const url = (path: string) => new URL(`http://127.0.0.1:1/api${path}`);
  const answer = (status: number, body: unknown, type = 'application/json; charset=utf-8') =>
    new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: { 'content-type': type, 'x-request-id': randomUUID() },
    });
  const key = {
    id: randomUUID(),
    name: 'ci',
    prefix: 'spk_live_abcd',
    environment: 'production',
    scopes: ['*'],
    createdAt: '2026-11-29T10:00:00.000Z',
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
  };

  it('passes an answer the document describes', async () => {
    const ok = await nonConformance('GET', url('/health/live'), answer(200, { status: 'ok' }));
    expect(ok).toBeUndefined();
    const error = await nonConformance('GET', url('/posts'), answer(401, { error: 'UNAUTHORIZED', message: 'x' }));
    expect(error).toBeUndefined();
  });

  it('finds an undeclared status, an undeclared content type, a field the document does not name and a wrong type', async () => {
    expect(await nonConformance('GET', url('/health/live'), answer(418, { status: 'ok' }))).toMatch(
      /status not declared/,
    );
    expect(await nonConformance('GET', url('/health/live'), answer(200, 'ok', 'text/plain'))).toMatch(
      /content type text\/plain not among/,
    );
    expect(await nonConformance('GET', url('/health/live'), answer(200, { status: 'ok', secret: 'x' }))).toMatch(
      /must NOT have additional properties.*secret/,
    );
    expect(
      await nonConformance('POST', url('/api-keys'), answer(201, { ...key, key: 'spk_live_x', scopes: 'all' })),
    ).toMatch(/\/scopes must be array/);
  });

  it('looks only at answers of the service, on operations of the document', async () => {
    const fake = new Response('{"x":1}', { status: 200, headers: { 'content-type': 'application/json' } });
    expect(await nonConformance('GET', url('/health/live'), fake)).toBeUndefined();
    expect(
      await nonConformance('GET', url('/nope'), answer(404, { error: 'NOT_FOUND', message: 'x' })),
    ).toBeUndefined();
    expect(await nonConformance('GET', url('/openapi.json'), answer(200, { openapi: '3.0.0' }))).toBeUndefined();
  });
});
