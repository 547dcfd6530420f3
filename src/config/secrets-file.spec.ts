import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSecretsFile } from './secrets-file';

describe('the secrets file (keys generated on a first start)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sps-secrets-spec-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is created with random keys, mode 0600, in a directory it makes, and read once per process', () => {
    const path = join(dir, 'new', 'deeper', 'secrets.env');
    const file = openSecretsFile(path);
    expect(file).toEqual({
      path,
      created: true,
      readableByOthers: false,
      values: {
        APP_ENCRYPTION_KEY: expect.stringMatching(/^[0-9a-f]{64}$/),
        MEDIA_URL_SIGNING_KEYS: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    expect(file.values.APP_ENCRYPTION_KEY).not.toBe(file.values.MEDIA_URL_SIGNING_KEYS);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'new', 'deeper')).mode & 0o077).toBe(0);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain(`APP_ENCRYPTION_KEY=${file.values.APP_ENCRYPTION_KEY}`);
    expect(text).toMatch(/^# /); // says what it is
    expect(openSecretsFile(path)).toBe(file);
  });

  it('reads a file another process wrote (not created here), and says when others can read it', () => {
    const path = join(dir, 'given.env');
    const key = 'ab'.repeat(32);
    writeFileSync(path, `# mine\nAPP_ENCRYPTION_KEY=${key}\nMEDIA_URL_SIGNING_KEYS=${'cd'.repeat(32)}\n`, {
      mode: 0o644,
    });
    const file = openSecretsFile(path);
    expect(file.created).toBe(false);
    expect(file.values.APP_ENCRYPTION_KEY).toBe(key);
    expect(file.readableByOthers).toBe(true);
  });

  it('refuses a file without a valid key, naming the file and the variable', () => {
    const path = join(dir, 'broken.env');
    writeFileSync(path, 'APP_ENCRYPTION_KEY=short\n', { mode: 0o600 });
    expect(() => openSecretsFile(path)).toThrow(new RegExp(`${path}.*APP_ENCRYPTION_KEY`));
  });
});
