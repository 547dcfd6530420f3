import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { IsIn, IsObject } from 'class-validator';
import { PROVIDER_PLUGINS, ProviderId } from '../../providers/provider.list';

/** Networks connected by sending credentials (OAuth networks use POST /api/channels/connect/{provider}). */
const CREDENTIAL_PLUGINS = PROVIDER_PLUGINS.filter((p) => p.connectKind === 'credentials');
const CREDENTIAL_PROVIDER_IDS: ProviderId[] = CREDENTIAL_PLUGINS.map((p) => p.id);
/** Each such provider's credentials schema (its `*.credentials.ts`), in registration order. */
const CREDENTIALS_SCHEMAS = CREDENTIAL_PLUGINS.map((p) => p.credentials);

@ApiExtraModels(...CREDENTIALS_SCHEMAS)
export class ConnectChannelDto {
  /** A network connected by credentials; OAuth networks connect through `POST /api/channels/connect/{provider}`. */
  @ApiProperty({ enum: CREDENTIAL_PROVIDER_IDS })
  @IsIn(CREDENTIAL_PROVIDER_IDS)
  provider!: ProviderId;

  /** Provider-specific credentials; they are verified with the provider, stored encrypted and never returned. */
  @ApiProperty({ oneOf: CREDENTIALS_SCHEMAS.map((schema) => ({ $ref: getSchemaPath(schema) })) })
  @IsObject()
  credentials!: Record<string, unknown>;
}

/** Request examples, one per provider (Swagger UI pre-fills the first). */
export const CONNECT_CHANNEL_EXAMPLES = {
  sandbox: {
    summary: 'Sandbox (no account needed)',
    value: { provider: 'sandbox', credentials: { name: 'My sandbox' } },
  },
  mastodon: {
    summary: 'Mastodon',
    value: {
      provider: 'mastodon',
      credentials: { instanceUrl: 'https://mastodon.social', accessToken: 'your-access-token' },
    },
  },
  bluesky: {
    summary: 'Bluesky',
    value: {
      provider: 'bluesky',
      credentials: { identifier: 'alice.bsky.social', appPassword: 'xxxx-xxxx-xxxx-xxxx' },
    },
  },
};

/**
 * The body of `POST /channels` as the document states it: one variant per credentials network, each
 * with its `provider` and that network's `credentials` schema, told apart by `provider` (a discriminator),
 * so a generated client and a schema validator know which credentials go with which network. The
 * service checks the same pairing (ChannelsService, the provider's credentials class).
 */
export function connectChannelVariants(): {
  variants: Record<string, Record<string, unknown>>;
  body: Record<string, unknown>;
} {
  const variants: Record<string, Record<string, unknown>> = {};
  const mapping: Record<string, string> = {};
  for (const plugin of CREDENTIAL_PLUGINS) {
    const name = `Connect${plugin.credentials.name.replace(/CredentialsDto$|Credentials$/, '')}Channel`;
    variants[name] = {
      type: 'object',
      description: `Connect a ${plugin.displayName} channel.`,
      required: ['provider', 'credentials'],
      additionalProperties: false,
      properties: {
        provider: { type: 'string', enum: [plugin.id] },
        credentials: { $ref: getSchemaPath(plugin.credentials) },
      },
    };
    mapping[plugin.id] = `#/components/schemas/${name}`;
  }
  return {
    variants,
    body: {
      description:
        'A network connected by credentials and its credentials; OAuth networks connect through ' +
        '`POST /api/channels/connect/{provider}`. Credentials are verified with the network, stored encrypted ' +
        'and never returned.',
      oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
      discriminator: { propertyName: 'provider', mapping },
    },
  };
}
