import { Global, Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { appConfig } from '../../config';
import { SecretBox } from './secret-box';

/** One SecretBox for the process, keyed by APP_ENCRYPTION_KEY. */
@Global()
@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [appConfig.KEY],
      useFactory: (app: ConfigType<typeof appConfig>) => new SecretBox(app.encryptionKey),
    },
  ],
  exports: [SecretBox],
})
export class CryptoModule {}
