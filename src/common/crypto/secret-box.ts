import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (provider credentials, webhook secrets).
 * Stored form: `v1.<base64url(iv[12] | tag[16] | ciphertext)>`. The version names the key, so a
 * later key rotation can decrypt old rows with the old key. Associated data binds a ciphertext to
 * its row (e.g. `workspaceId:channelId`): copied into another row, it no longer decrypts.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;

  constructor(
    currentKey: Buffer,
    private readonly currentVersion = 'v1',
    previous: Record<string, Buffer> = {},
  ) {
    if (currentKey.length !== 32) throw new Error('SecretBox needs a 32-byte key');
    this.keys = new Map([...Object.entries(previous), [currentVersion, currentKey]]);
  }

  seal(plaintext: string, associatedData: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentVersion)!, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${this.currentVersion}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  open(sealed: string, associatedData: string): string {
    const dot = sealed.indexOf('.');
    const key = dot > 0 ? this.keys.get(sealed.slice(0, dot)) : undefined;
    if (!key) throw new Error('Unknown secret key version');
    const raw = Buffer.from(sealed.slice(dot + 1), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  sealJson(value: unknown, associatedData: string): string {
    return this.seal(JSON.stringify(value), associatedData);
  }

  openJson<T>(sealed: string, associatedData: string): T {
    return JSON.parse(this.open(sealed, associatedData)) as T;
  }
}
