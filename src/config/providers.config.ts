import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { toBool, validateEnv } from './validate-env';

export class ProvidersEnv {
  /** The built-in sandbox network (docs/guide.md section 11); on by default, in production too. */
  @Transform(toBool)
  @IsBoolean()
  SANDBOX_PROVIDER: boolean = true;

  /** Threads and Instagram: first pause between two reads of a media container's status, in ms (it doubles up to 5 s). */
  @IsInt()
  @Min(10)
  @Max(60_000)
  META_CONTAINER_POLL_MS: number = 1000;

  /** Threads and Instagram: longest wait for a media container to be processed in one attempt; later attempts go on with the same container. */
  @IsInt()
  @Min(1)
  @Max(600)
  META_CONTAINER_WAIT_SECONDS: number = 30;
}

export const providersConfig = registerAs('providers', () => {
  const env = validateEnv(ProvidersEnv);
  return {
    sandboxEnabled: env.SANDBOX_PROVIDER,
    metaContainer: { pollMs: env.META_CONTAINER_POLL_MS, maxWaitMs: env.META_CONTAINER_WAIT_SECONDS * 1000 },
  };
});
export type ProvidersConfig = ReturnType<typeof providersConfig>;
