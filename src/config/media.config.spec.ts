import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appConfig } from './app.config';
import { mediaConfig } from './media.config';

// Keys generated on a start without them go to a file of this spec's own, not ./data.
const secretsDir = mkdtempSync(join(tmpdir(), 'sps-media-config-'));
const savedSecretsFile = process.env.APP_SECRETS_FILE;
beforeAll(() => (process.env.APP_SECRETS_FILE = join(secretsDir, 'secrets.env')));
afterAll(() => {
  if (savedSecretsFile === undefined) delete process.env.APP_SECRETS_FILE;
  else process.env.APP_SECRETS_FILE = savedSecretsFile;
  rmSync(secretsDir, { recursive: true, force: true });
});

/** Runs `read` with these variables set (undefined: unset), then restores the environment. */
function withEnv<T>(vars: Record<string, string | undefined>, read: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return read();
  } finally {
    apply(saved);
  }
}

const KEY = 'k'.repeat(32);

describe('media URL signing configuration', () => {
  it('signs with the first key and verifies with all, trimming spaces; TTL and S3 redirect have defaults', () => {
    const cfg = withEnv({ NODE_ENV: 'test', MEDIA_URL_SIGNING_KEYS: ` ${KEY} , ${'o'.repeat(40)} ` }, mediaConfig);
    expect(cfg.signingKeys).toEqual([KEY, 'o'.repeat(40)]);
    expect(cfg.signedUrlTtlSeconds).toBe(3600);
    expect(cfg.s3Redirect).toBe(true);
  });

  it('generates a key into APP_SECRETS_FILE outside production, refuses the former public one, and requires keys in production', () => {
    const dev = withEnv({ NODE_ENV: 'development', MEDIA_URL_SIGNING_KEYS: undefined }, mediaConfig);
    expect(dev.signingKeys).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);
    expect(dev.signingKeysFile?.path).toBe(join(secretsDir, 'secrets.env'));
    expect(readFileSync(join(secretsDir, 'secrets.env'), 'utf8')).toContain(
      `MEDIA_URL_SIGNING_KEYS=${dev.signingKeys[0]}`,
    );
    expect(statSync(join(secretsDir, 'secrets.env')).mode & 0o777).toBe(0o600);
    // The same key on the next read, and for the other namespace's key from the same file.
    expect(withEnv({ NODE_ENV: 'development', MEDIA_URL_SIGNING_KEYS: undefined }, mediaConfig).signingKeys).toEqual(
      dev.signingKeys,
    );
    expect(() =>
      withEnv(
        { NODE_ENV: 'development', MEDIA_URL_SIGNING_KEYS: 'development-only-media-url-signing-key-not-secret' },
        mediaConfig,
      ),
    ).toThrow(/publicly known/);
    expect(() =>
      withEnv(
        { NODE_ENV: 'production', APP_ENCRYPTION_KEY: 'a'.repeat(64), MEDIA_URL_SIGNING_KEYS: undefined },
        mediaConfig,
      ),
    ).toThrow(/MEDIA_URL_SIGNING_KEYS is required when NODE_ENV=production/);
    const prod = withEnv(
      { NODE_ENV: 'production', APP_ENCRYPTION_KEY: 'a'.repeat(64), MEDIA_URL_SIGNING_KEYS: KEY },
      mediaConfig,
    );
    expect(prod.signingKeys).toEqual([KEY]);
  });

  it('refuses keys shorter than 32 characters and a TTL out of range, naming the variable', () => {
    expect(() => withEnv({ NODE_ENV: 'test', MEDIA_URL_SIGNING_KEYS: `${KEY},short` }, mediaConfig)).toThrow(
      /MEDIA_URL_SIGNING_KEYS: each key must be at least 32 characters/,
    );
    expect(() => withEnv({ NODE_ENV: 'test', MEDIA_URL_TTL_SECONDS: '10' }, mediaConfig)).toThrow(
      /MEDIA_URL_TTL_SECONDS/,
    );
  });

  it('takes PUBLIC_BASE_URL from the app configuration, without a trailing slash', () => {
    const app = withEnv({ NODE_ENV: 'test', PUBLIC_BASE_URL: 'https://social.example.com/' }, appConfig);
    expect(app.publicBaseUrl).toBe('https://social.example.com');
    expect(() => withEnv({ NODE_ENV: 'test', PUBLIC_BASE_URL: 'social.example.com' }, appConfig)).toThrow(
      /PUBLIC_BASE_URL/,
    );
  });
});

describe('image decoding configuration', () => {
  it('caps images at 50 megapixels and decodes two at a time by default; the cap cannot pass sharp own limit', () => {
    const cfg = withEnv(
      { NODE_ENV: 'test', MEDIA_MAX_IMAGE_PIXELS: undefined, MEDIA_IMAGE_CONCURRENCY: undefined },
      mediaConfig,
    );
    expect({ pixels: cfg.maxImagePixels, concurrency: cfg.imageConcurrency }).toEqual({
      pixels: 50_000_000,
      concurrency: 2,
    });
    expect(withEnv({ NODE_ENV: 'test', MEDIA_MAX_IMAGE_PIXELS: '100000000' }, mediaConfig).maxImagePixels).toBe(
      100_000_000,
    );
    expect(() => withEnv({ NODE_ENV: 'test', MEDIA_MAX_IMAGE_PIXELS: '300000000' }, mediaConfig)).toThrow(
      /MEDIA_MAX_IMAGE_PIXELS/,
    );
    expect(() => withEnv({ NODE_ENV: 'test', MEDIA_IMAGE_CONCURRENCY: '0' }, mediaConfig)).toThrow(
      /MEDIA_IMAGE_CONCURRENCY/,
    );
  });
});
