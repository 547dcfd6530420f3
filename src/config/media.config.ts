import { registerAs } from '@nestjs/config';
import { IsIn, IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { SUPPORTED_MEDIA_TYPES } from '../media/media-type.util';
import { validateEnv } from './validate-env';

/** One chunk travels in one multipart request and is stored as one part; 1 GiB is plenty (and fits an int column). */
const MAX_CHUNK_BYTES = 1024 * 1024 * 1024;

export class MediaEnv {
  /** Storage driver; only the local disk driver ships today (S3-compatible storage is the scale-out driver). */
  @IsIn(['local'])
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

  /** Comma-separated MIME types accepted at initialize; each must be one the service can sniff. */
  @IsString()
  MEDIA_ALLOWED_TYPES: string = SUPPORTED_MEDIA_TYPES.join(',');

  /** How long an upload may stay unfinalized before it expires. */
  @IsInt()
  @Min(60)
  MEDIA_UPLOAD_TTL_SECONDS: number = 24 * 60 * 60;

  /** Interval of the job that expires stale uploads and removes their parts. */
  @IsInt()
  @Min(1)
  MEDIA_EXPIRY_SWEEP_SECONDS: number = 300;
}

export const mediaConfig = registerAs('media', () => {
  const env = validateEnv(MediaEnv);
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
  return {
    storage: env.MEDIA_STORAGE as 'local',
    dir: env.MEDIA_DIR,
    maxBytes: env.MEDIA_MAX_BYTES,
    chunkBytes: env.MEDIA_CHUNK_BYTES,
    allowedTypes: [...new Set(allowedTypes)],
    uploadTtlSeconds: env.MEDIA_UPLOAD_TTL_SECONDS,
    expirySweepSeconds: env.MEDIA_EXPIRY_SWEEP_SECONDS,
  };
});
export type MediaConfig = ReturnType<typeof mediaConfig>;
