import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';
import { toBool, validateEnv } from './validate-env';

export class ProvidersEnv {
  /** The built-in sandbox network (docs/guide.md section 11); on by default, in production too. */
  @Transform(toBool)
  @IsBoolean()
  SANDBOX_PROVIDER: boolean = true;
}

export const providersConfig = registerAs('providers', () => {
  const env = validateEnv(ProvidersEnv);
  return { sandboxEnabled: env.SANDBOX_PROVIDER };
});
export type ProvidersConfig = ReturnType<typeof providersConfig>;
