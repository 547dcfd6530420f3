import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SecretBoxOptions {
  /**
   * Keys tried, after the key of a value's version, to open it; never used to seal (the former public
   * development key: what it sealed stays readable, nothing new is sealed with it).
   */
  openOnly?: Buffer[];
  /** Called the first time an open-only key opens a value. */
  onOpenOnly?: () => void;
}

/**
 * AES-256-GCM for secrets at rest (provider credentials, webhook secrets).
 * Stored form: `v1.<base64url(iv[12] | tag[16] | ciphertext)>`. The version names the key, so a
 * later key rotation can decrypt old rows with the old key. Associated data binds a ciphertext to
 * its row (e.g. `workspaceId:channelId`): copied into another row, it no longer decrypts.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly openOnly: Buffer[];
  private openedWithOpenOnly = false;

  constructor(
    currentKey: Buffer,
    private readonly currentVersion = 'v1',
    previous: Record<string, Buffer> = {},
    private readonly options: SecretBoxOptions = {},
  ) {
    if (currentKey.length !== 32) throw new Error('SecretBox needs a 32-byte key');
    this.keys = new Map([...Object.entries(previous), [currentVersion, currentKey]]);
    this.openOnly = (options.openOnly ?? []).filter((k) => !k.equals(currentKey));
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
    try {
      return decrypt(key, raw, associatedData);
    } catch (err) {
      for (const other of this.openOnly) {
        let plain: string;
        try {
          plain = decrypt(other, raw, associatedData);
        } catch {
          continue;
        }
        if (!this.openedWithOpenOnly) {
          this.openedWithOpenOnly = true;
          this.options.onOpenOnly?.();
        }
        return plain;
      }
      throw err;
    }
  }

  sealJson(value: unknown, associatedData: string): string {
    return this.seal(JSON.stringify(value), associatedData);
  }

  openJson<T>(sealed: string, associatedData: string): T {
    return JSON.parse(this.open(sealed, associatedData)) as T;
  }
}

/** GCM checks the tag: a wrong key, a wrong row or a changed byte throws. */
function decrypt(key: Buffer, raw: Buffer, associatedData: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
