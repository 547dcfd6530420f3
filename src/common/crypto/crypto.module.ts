import { Global, Logger, Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { appConfig } from '../../config';
import { mediaConfig } from '../../config/media.config';
import { secretsNotices } from '../../config/secrets-file';
import { SecretBox } from './secret-box';

const logger = new Logger('Secrets');

/** One SecretBox for the process, keyed by APP_ENCRYPTION_KEY (given, or generated on first start). */
@Global()
@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [appConfig.KEY, mediaConfig.KEY],
      useFactory: (app: ConfigType<typeof appConfig>, media: ConfigType<typeof mediaConfig>) => {
        for (const { level, record } of secretsNotices(app.encryptionKeyFile, media.signingKeysFile)) {
          logger[level](record);
        }
        return new SecretBox(
          app.encryptionKey,
          'v1',
          {},
          {
            openOnly: app.openOnlyEncryptionKeys,
            onOpenOnly: () =>
              logger.warn(
                'Opened a secret sealed with the former all-zero development key (this database was used ' +
                  'without APP_ENCRYPTION_KEY before). It stays readable outside production; reconnect the ' +
                  'channel or rotate the webhook secret to seal it with the current key.',
              ),
          },
        );
      },
    },
  ],
  exports: [SecretBox],
})
export class CryptoModule {}
