import { WebhookVerificationError } from './errors';
import type { WebhookEvent } from './events';
import { bytesToBase64, base64ToBytes, getSubtle, toBytes } from './util';

export interface VerifyWebhookOptions {
  /** Largest accepted distance between `webhook-timestamp` and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** "Now", for tests. Default `Date.now()`. */
  now?: number | Date;
}

/** Request headers as Node (`req.headers`), the Fetch API (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/** Secrets are `whsec_` + base64 (the prefix is optional). */
function secretKey(secret: string): Uint8Array {
  const raw = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = base64ToBytes(raw);
  if (key.length === 0) throw new WebhookVerificationError('The webhook secret is empty or not base64');
  return key;
}

/** Compares in time that depends on the lengths only, never on where the bytes differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * Checks a webhook request the service sent (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) and returns its event. Pass the raw body exactly as received, the headers,
 * and the endpoint's secret, or several (during a rotation both the old and the new one verify).
 * Throws WebhookVerificationError when a header is missing, the timestamp is outside the
 * tolerance, or no signature matches any secret.
 */
export async function verifyWebhook(
  payload: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secretOrSecrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing required webhook headers');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp header');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor(Number(options.now ?? Date.now()) / 1000);
  const sentAt = Number(timestamp);
  if (sentAt < now - tolerance) throw new WebhookVerificationError('Message timestamp too old');
  if (sentAt > now + tolerance) throw new WebhookVerificationError('Message timestamp too new');

  const body = toBytes(payload);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);

  const given = signatures
    .split(' ')
    .map((s) => s.split(','))
    .filter(([version, value]) => version === 'v1' && value)
    .map(([, value]) => base64ToBytes(value!));
  const secrets = typeof secretOrSecrets === 'string' ? [secretOrSecrets] : [...secretOrSecrets];
  if (secrets.length === 0) throw new WebhookVerificationError('No webhook secret given');
  const subtle = await getSubtle();
  let matched = false;
  for (const secret of secrets) {
    const key = await subtle.importKey(
      'raw',
      secretKey(secret) as BufferSource,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const expected = new Uint8Array(await subtle.sign('HMAC', key, signed));
    // Every candidate is compared, so the time taken does not tell which one matched.
    for (const signature of given) matched = constantTimeEqual(expected, signature) || matched;
  }
  if (!matched) throw new WebhookVerificationError('No matching signature found');
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The webhook body is not JSON');
  }
}

/** Signs like the service does (for tests of your own endpoint): the `webhook-signature` value for one secret. */
export async function signWebhook(secret: string, id: string, timestamp: number, payload: string): Promise<string> {
  const subtle = await getSubtle();
  const key = await subtle.importKey(
    'raw',
    secretKey(secret) as BufferSource,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await subtle.sign('HMAC', key, encoder.encode(`${id}.${timestamp}.${payload}`));
  return `v1,${bytesToBase64(new Uint8Array(mac))}`;
}
