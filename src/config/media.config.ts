import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { AppEnv } from './app.config';
import { SecretsFile, openSecretsFile } from './secrets-file';
import { toBool, validateEnv } from './validate-env';

/**
 * The media types the service can recognize from their bytes (media/media-type.util.ts sniffs exactly
 * these; its spec checks it). Defined here so config validates MEDIA_ALLOWED_TYPES without importing
 * a feature.
 */
export const SUPPORTED_MEDIA_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'video/webm',
] as const;

/**
 * The key that once signed media URLs outside production when MEDIA_URL_SIGNING_KEYS was unset. It is
 * public (it was in the source), so it is refused: anyone could sign URLs with it.
 */
const LEGACY_DEVELOPMENT_SIGNING_KEY = 'development-only-media-url-signing-key-not-secret';
/** Shortest signing key accepted: 32 characters (e.g. `openssl rand -hex 32` gives 64). */
const MIN_SIGNING_KEY_LENGTH = 32;

/** sharp's default `limitInputPixels` (0x3FFF squared): MEDIA_MAX_IMAGE_PIXELS may not go beyond it. */
const SHARP_PIXEL_LIMIT = 0x3fff * 0x3fff;

/** One chunk travels in one multipart request and is stored as one part; 1 GiB is plenty (and fits an int column). */
const MAX_CHUNK_BYTES = 1024 * 1024 * 1024;

export class MediaEnv {
  /** Storage driver: `local` (a directory, shared by every instance) or `s3` (any S3-compatible object store). */
  @IsIn(['local', 's3'])
  MEDIA_STORAGE: string = 'local';

  /** Root directory of the local disk driver. */
  @IsString()
  @MinLength(1)
  MEDIA_DIR: string = './data/media';

  /** Largest declared size accepted at initialize (413 above). */
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  MEDIA_MAX_BYTES: number = 512 * 1024 * 1024;

  /** Size of every chunk but the last (the server may pick more for huge files, to stay under 10,000 parts). */
  @IsInt()
  @Min(1)
  @Max(MAX_CHUNK_BYTES)
  MEDIA_CHUNK_BYTES: number = 5 * 1024 * 1024;

  /**
   * Largest image, in pixels (width x height; one frame of an animation), that finalize accepts and
   * that is ever decoded (422 above). Decoding costs about 4 bytes per pixel, so the default of 50
   * megapixels (48 MP phone photos, 8K frames, most camera sensors) keeps one decode near 200 MiB;
   * sharp's own limit, 268 million pixels, lets a 243 KiB PNG take a worker past 1.5 GiB.
   */
  @IsInt()
  @Min(1)
  @Max(SHARP_PIXEL_LIMIT)
  MEDIA_MAX_IMAGE_PIXELS: number = 50_000_000;

  /** Images one process decodes at a time (the check at finalize and conversions); the others wait their turn. */
  @IsInt()
  @Min(1)
  @Max(64)
  MEDIA_IMAGE_CONCURRENCY: number = 2;

  /** Comma-separated MIME types accepted at initialize; each must be one the service can sniff. */
  @IsString()
  MEDIA_ALLOWED_TYPES: string = SUPPORTED_MEDIA_TYPES.join(',');

  /** How long an upload may stay unfinalized before it expires. */
  @IsInt()
  @Min(60)
  MEDIA_UPLOAD_TTL_SECONDS: number = 24 * 60 * 60;

  /** Unfinished uploads one workspace may have at a time (initialize answers 409 beyond). */
  @IsInt()
  @Min(1)
  MEDIA_MAX_PENDING_UPLOADS: number = 100;

  /** How long an expired upload's row stays readable (status `expired`) before the sweep deletes it. */
  @IsInt()
  @Min(0)
  MEDIA_EXPIRED_RETENTION_SECONDS: number = 7 * 24 * 60 * 60;

  /** Interval of the job that expires stale uploads and removes their parts. */
  @IsInt()
  @Min(1)
  MEDIA_EXPIRY_SWEEP_SECONDS: number = 300;

  /** Time budget of one download of POST /media/upload/url (connect to last byte). */
  @IsInt()
  @Min(1)
  MEDIA_URL_TIMEOUT_SECONDS: number = 300;

  /**
   * POST /media/upload/url answers 202 (`processing`, downloaded by a worker) when the server announces
   * more bytes than this (Content-Length); smaller files are downloaded while the request waits.
   */
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  MEDIA_URL_ASYNC_BYTES: number = 16 * 1024 * 1024;

  /** How long POST /media/upload/url waits for a download before it answers 202 and a worker takes over. */
  @IsInt()
  @Min(1)
  MEDIA_URL_WAIT_SECONDS: number = 5;

  /** Background downloads tried for one item before it is `failed` (a crashed worker's try counts). */
  @IsInt()
  @Min(1)
  @Max(10)
  MEDIA_URL_IMPORT_ATTEMPTS: number = 3;

  /** Background downloads one worker runs at a time. */
  @IsInt()
  @Min(1)
  @Max(50)
  MEDIA_URL_IMPORT_CONCURRENCY: number = 2;

  /** Interval of the job that re-queues background downloads Redis lost and takes over ones whose worker died. */
  @IsInt()
  @Min(1)
  MEDIA_URL_SWEEP_SECONDS: number = 60;

  /**
   * Keys of the signed public media URLs (`GET /api/media/{id}/content?expires&signature`),
   * comma-separated, each at least 32 characters: the first signs, every one verifies, so a key
   * rotates by putting the new one first and dropping the old one after MEDIA_URL_TTL_SECONDS.
   * Required in production; otherwise, when unset, a random key is generated into APP_SECRETS_FILE.
   */
  @IsOptional()
  @IsString()
  MEDIA_URL_SIGNING_KEYS?: string = undefined;

  /** How long a signed media URL stays valid, in seconds. */
  @IsInt()
  @Min(60)
  @Max(7 * 24 * 60 * 60)
  MEDIA_URL_TTL_SECONDS: number = 3600;

  /**
   * With MEDIA_STORAGE=s3, the content route answers 302 to a presigned S3 URL (the bytes then never
   * pass through this service). False streams them through the service instead, for buckets that
   * only this service can reach.
   */
  @Transform(toBool)
  @IsBoolean()
  MEDIA_URL_S3_REDIRECT: boolean = true;
}

/** The S3 driver's settings, read and validated only when MEDIA_STORAGE=s3. */
export class S3Env {
  /** Endpoint URL of an S3-compatible server (MinIO, Ceph, R2, ...); empty = AWS for S3_REGION. */
  @Matches(/^(https?:\/\/.+)?$/, { message: 'must be an http:// or https:// URL (or empty for AWS)' })
  S3_ENDPOINT: string = '';

  @IsString()
  @MinLength(1)
  S3_REGION: string = 'us-east-1';

  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'must be a valid bucket name' })
  S3_BUCKET: string = '';

  @IsString()
  @MinLength(1)
  S3_ACCESS_KEY_ID: string = '';

  @IsString()
  @MinLength(1)
  S3_SECRET_ACCESS_KEY: string = '';

  /** Path-style URLs (`endpoint/bucket/key`), which most self-hosted servers need. */
  @Transform(toBool)
  @IsBoolean()
  S3_FORCE_PATH_STYLE: boolean = true;

  /** Prefix of every object key (e.g. `media/`), so one bucket can hold other data. */
  @Matches(/^([A-Za-z0-9!_.*'()-]+\/)*$/, { message: "must be empty or path segments each ending in '/'" })
  S3_KEY_PREFIX: string = '';
}

export interface S3Settings {
  endpoint: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  keyPrefix: string;
}

export const mediaConfig = registerAs('media', () => {
  const env = validateEnv(MediaEnv);
  let s3: S3Settings | null = null;
  if (env.MEDIA_STORAGE === 's3') {
    const s = validateEnv(S3Env);
    s3 = {
      endpoint: s.S3_ENDPOINT || undefined,
      region: s.S3_REGION,
      bucket: s.S3_BUCKET,
      accessKeyId: s.S3_ACCESS_KEY_ID,
      secretAccessKey: s.S3_SECRET_ACCESS_KEY,
      forcePathStyle: s.S3_FORCE_PATH_STYLE,
      keyPrefix: s.S3_KEY_PREFIX,
    };
  }
  const allowedTypes = env.MEDIA_ALLOWED_TYPES.split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t.length > 0);
  const unsupported = allowedTypes.filter((t) => !(SUPPORTED_MEDIA_TYPES as readonly string[]).includes(t));
  if (allowedTypes.length === 0 || unsupported.length > 0) {
    throw new Error(
      `Invalid configuration: MEDIA_ALLOWED_TYPES=${JSON.stringify(env.MEDIA_ALLOWED_TYPES)}: ` +
        `each entry must be one of ${SUPPORTED_MEDIA_TYPES.join(', ')}`,
    );
  }
  const signingKeys = (env.MEDIA_URL_SIGNING_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
  if (signingKeys.some((k) => k.length < MIN_SIGNING_KEY_LENGTH)) {
    throw new Error(
      `Invalid configuration: MEDIA_URL_SIGNING_KEYS: each key must be at least ${MIN_SIGNING_KEY_LENGTH} characters`,
    );
  }
  if (signingKeys.includes(LEGACY_DEVELOPMENT_SIGNING_KEY)) {
    throw new Error(
      'Invalid configuration: MEDIA_URL_SIGNING_KEYS holds the former development key, a publicly known key; ' +
        'use `openssl rand -hex 32`',
    );
  }
  let signingKeysFile: SecretsFile | null = null;
  if (signingKeys.length === 0) {
    const app = validateEnv(AppEnv);
    if (app.NODE_ENV === 'production') {
      throw new Error('Invalid configuration: MEDIA_URL_SIGNING_KEYS is required when NODE_ENV=production');
    }
    signingKeysFile = openSecretsFile(app.APP_SECRETS_FILE);
    signingKeys.push(signingKeysFile.values.MEDIA_URL_SIGNING_KEYS);
  }
  return {
    storage: env.MEDIA_STORAGE as 'local' | 's3',
    dir: env.MEDIA_DIR,
    s3,
    maxBytes: env.MEDIA_MAX_BYTES,
    chunkBytes: env.MEDIA_CHUNK_BYTES,
    allowedTypes: [...new Set(allowedTypes)],
    uploadTtlSeconds: env.MEDIA_UPLOAD_TTL_SECONDS,
    expirySweepSeconds: env.MEDIA_EXPIRY_SWEEP_SECONDS,
    maxPendingUploads: env.MEDIA_MAX_PENDING_UPLOADS,
    expiredRetentionSeconds: env.MEDIA_EXPIRED_RETENTION_SECONDS,
    urlTimeoutMs: env.MEDIA_URL_TIMEOUT_SECONDS * 1000,
    urlAsyncBytes: env.MEDIA_URL_ASYNC_BYTES,
    urlWaitMs: env.MEDIA_URL_WAIT_SECONDS * 1000,
    urlImportAttempts: env.MEDIA_URL_IMPORT_ATTEMPTS,
    urlImportConcurrency: env.MEDIA_URL_IMPORT_CONCURRENCY,
    urlSweepMs: env.MEDIA_URL_SWEEP_SECONDS * 1000,
    // A background download holds its item for its time budget twice over, plus a minute to store it.
    urlImportClaimMs: env.MEDIA_URL_TIMEOUT_SECONDS * 2000 + 60_000,
    /** The first signs; all verify. */
    signingKeys,
    /** The file the signing key came from (generated on first start), or null when MEDIA_URL_SIGNING_KEYS was given. */
    signingKeysFile,
    signedUrlTtlSeconds: env.MEDIA_URL_TTL_SECONDS,
    s3Redirect: env.MEDIA_URL_S3_REDIRECT,
    maxImagePixels: env.MEDIA_MAX_IMAGE_PIXELS,
    imageConcurrency: env.MEDIA_IMAGE_CONCURRENCY,
  };
});
export type MediaConfig = ReturnType<typeof mediaConfig>;
