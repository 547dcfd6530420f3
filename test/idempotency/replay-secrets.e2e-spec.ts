import { IdempotencyService, requestHash } from '../../src/idempotency/idempotency.service';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Responses kept for Idempotency-Key replays hold secrets shown once (a new API key, a webhook
 * secret): they are sealed at rest like channel credentials, bound to their row, and a replay still
 * returns them.
 */
describe('secrets in stored Idempotency-Key responses', () => {
  let t: TestApp;
  let ws: { key: string; workspaceId: string; apiKeyId: string };
  const receiver = new WebhookReceiver();

  const stored = async (key: string): Promise<string> => {
    const rows = await t.dataSource.query<Array<{ body: string | null }>>(
      'SELECT response_body::text AS body FROM idempotency_keys WHERE api_key_id = $1 AND key = $2',
      [ws.apiKeyId, key],
    );
    expect(rows).toHaveLength(1);
    return rows[0].body ?? '';
  };

  /** Sends a POST twice with one Idempotency-Key: the answer and its replay. */
  const twice = async (path: string, body: unknown, key: string) => {
    const first = await t.request('POST', path, { key: ws.key, headers: { 'idempotency-key': key }, body });
    const replay = await t.request('POST', path, { key: ws.key, headers: { 'idempotency-key': key }, body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    return { first, replay };
  };

  beforeAll(async () => {
    await receiver.start();
    t = await TestApp.start();
    ws = await t.createWorkspace('replay-secrets');
  });
  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });

  it('a created API key is not stored in plain text, and the replay returns it', async () => {
    const { first, replay } = await twice('/api/api-keys', { name: 'ci' }, 'make-key-1');
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^spk_live_/);
    const row = await stored('make-key-1');
    expect(row).not.toContain(first.body.key);
    expect(row).not.toContain('spk_');
    expect(row).not.toContain(first.body.id);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
  });

  it('a webhook secret (at creation and from rotate-secret) is not stored in plain text, and replays return it', async () => {
    const made = await twice('/api/webhooks', { url: receiver.url('/hook') }, 'make-hook-1');
    expect(made.first.status).toBe(201);
    expect(made.first.body.secret).toMatch(/^whsec_/);
    expect(await stored('make-hook-1')).not.toContain('whsec_');
    expect(made.replay.body).toEqual(made.first.body);

    const rotated = await twice(`/api/webhooks/${made.first.body.id}/rotate-secret`, {}, 'rotate-hook-1');
    expect(rotated.first.status).toBe(200);
    expect(rotated.first.body.secret).toMatch(/^whsec_/);
    expect(rotated.first.body.secret).not.toBe(made.first.body.secret);
    expect(await stored('rotate-hook-1')).not.toContain('whsec_');
    expect(rotated.replay.body).toEqual(rotated.first.body);
  });

  it('a sealed response is bound to its row: moved to another key, it is not replayed', async () => {
    const { first } = await twice('/api/api-keys', { name: 'moved' }, 'sealed-here');
    await twice('/api/api-keys', { name: 'moved' }, 'moved-there');
    await t.dataSource.query(
      `UPDATE idempotency_keys SET response_body = (SELECT response_body FROM idempotency_keys WHERE key = 'sealed-here')
        WHERE key = 'moved-there'`,
    );
    const res = await t.request('POST', '/api/api-keys', {
      key: ws.key,
      headers: { 'idempotency-key': 'moved-there' },
      body: { name: 'moved' },
    });
    expect(res.status).toBe(500);
    expect(res.text).not.toContain(first.body.key);
  });

  it('a response stored in plain text before the upgrade still replays, and is sealed by the pruner', async () => {
    // A created key as the API answered it then (every field of CreatedApiKeyDto), stored in plain text.
    const legacy = {
      id: '6f1c2a9e-0d4b-4c1e-9a57-2b8f0e3d7c11',
      name: 'old',
      prefix: 'spk_live_legac',
      environment: 'production',
      scopes: ['*'],
      rateLimitPerMinute: 100,
      rateLimitBurst: 200,
      createdAt: '2026-11-01T10:00:00.000Z',
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
      key: 'spk_live_legacyplaintextvalue',
    };
    await t.dataSource.query(
      `INSERT INTO idempotency_keys (api_key_id, key, request_hash, response_status, response_body, expires_at)
       VALUES ($1, 'legacy-row', $2, 201, $3, now() + interval '1 hour')`,
      [
        ws.apiKeyId,
        requestHash({ method: 'POST', path: '/api/api-keys', body: { name: 'legacy' } }),
        JSON.stringify(legacy),
      ],
    );
    const replay = await t.request('POST', '/api/api-keys', {
      key: ws.key,
      headers: { 'idempotency-key': 'legacy-row' },
      body: { name: 'legacy' },
    });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(legacy);

    expect(await t.app.get(IdempotencyService).sealPlainResponses()).toBeGreaterThanOrEqual(1);
    expect(await stored('legacy-row')).not.toContain('spk_live_');
    const again = await t.request('POST', '/api/api-keys', {
      key: ws.key,
      headers: { 'idempotency-key': 'legacy-row' },
      body: { name: 'legacy' },
    });
    expect(again.body).toEqual(legacy);
  });
});
