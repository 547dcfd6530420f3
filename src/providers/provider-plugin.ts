import type { InjectionToken } from '@nestjs/common';
import type { OutboundHttp } from '../common/http/outbound-http';
import type { SettingsOf, SettingsSpec } from '../config/settings';
import type { ChannelLimits, OAuthSpec, SocialProvider } from './social-provider.interface';
import type { ApiVersionSpec } from './api-version';

/**
 * How a user connects an account. `credentials`: the connect request carries them (Mastodon token,
 * Bluesky app password) and the plugin's credentials schema validates them. `oauth`: the account is
 * connected through an authorization-code flow with PKCE (`POST /api/channels/connect/{provider}`); the
 * plugin declares its endpoints and scopes in `oauth` and the oauth module runs the flow and the refresh.
 */
export type ConnectKind = 'credentials' | 'oauth';

/**
 * What a network takes that is the same for every account, declared by its plugin and read from the
 * registry (the contract suite checks each against the network's fake). What varies by account is in
 * the channel's limits (`ChannelLimits.threads`; the limits are the place for further per-account
 * facts, such as video limits or first comments), and a network's own post settings are the JSON
 * Schema of the plugin's `optionsSchema` (docs/adr/0031, docs/adr/0035).
 */
export interface ProviderCapabilities {
  /** Images reach the network with their alt text (`media.altText`), and its fake reports what it received. */
  readonly altText: boolean;
  /**
   * The figures `fetchMetrics` reads from the network; absent: likes, reposts and replies. Empty: the
   * network offers no figures for these posts, and `fetchMetrics` answers nulls without calling it
   * (Telegram's Bot API gives bots no counts of messages). The contract suite checks the figures
   * listed and expects null for the others.
   */
  readonly metrics?: readonly MetricName[];
}

/**
 * The JSON Schema (draft 07, as ajv reads it) of a network's own settings for a target
 * (`targets[i].options`). Closed: `type: 'object'` and `additionalProperties: false`, so an unknown
 * field is refused. Declare it as `JSONSchemaType<YourOptions>` so the schema and the type the adapter
 * reads in `PublishInput.options` cannot drift apart.
 */
export interface OptionsSchema {
  type: 'object';
  additionalProperties: false;
  properties: Record<string, unknown>;
  required?: readonly string[];
  [keyword: string]: unknown;
}

/** A figure of `Metrics` a network can report. */
export type MetricName = 'likes' | 'reposts' | 'replies' | 'quotes' | 'impressions';

/** A class-validator class: the one schema of what a user sends to connect (validation and OpenAPI). */
export type CredentialsSchema = new () => object;

/** What a plugin gets to build its adapter; shared by every provider. */
export interface ProviderContext<S extends SettingsSpec = SettingsSpec> {
  /** The SSRF-guarded outbound HTTP client. */
  http: OutboundHttp;
  /** The values of the plugin's own `settings`, read from the environment and validated at start. */
  settings: SettingsOf<S>;
  /**
   * One of the tokens the plugin lists in `inject`, as Nest built it (a config namespace, or the
   * implementation of a port the plugin owns). Throws for tokens not listed. Networks reached over
   * HTTP need none of it.
   */
  resolve<T>(token: InjectionToken<T>): T;
}

/**
 * One social network as a plugin. Its folder (`src/providers/<id>/`) owns the adapter, the credentials
 * schema and the limits; `provider.list.ts` registers it with one line. See docs/adding-a-provider.md.
 */
export interface ProviderPlugin<Id extends string = string, S extends SettingsSpec = SettingsSpec> {
  /** Stable id, stored in `channels.provider` and sent by clients (lower case, no spaces). */
  readonly id: Id;
  /** Human name of the network, for messages and front ends. */
  readonly displayName: string;
  readonly connectKind: ConnectKind;
  /** The version of the network's API it calls, and when the owner retires it (`GET /api/providers`). */
  readonly apiVersion: ApiVersionSpec;
  /**
   * Schema of the credentials given to `POST /api/channels`. The API validates the request with it
   * (unknown fields refused), the adapter parses with it, and its class name is the OpenAPI schema
   * listed in the connect request's `oneOf`.
   */
  readonly credentials: CredentialsSchema;
  /**
   * Nest tokens `create` reads through `context.resolve`: a config namespace, or a port the plugin
   * owns (the sandbox's `SandboxTimeline`) that a feature binds in a global module. They are injected
   * into the registry's factory, so Nest builds them first. `src/providers/` imports no feature.
   */
  readonly inject?: readonly InjectionToken[];
  /** Limits of a typical account, listed by `GET /api/providers` (a channel's own limits may differ). */
  readonly defaultLimits: ChannelLimits;
  /** What the network takes beyond the limits, for every account. */
  readonly capabilities: ProviderCapabilities;
  /**
   * The JSON Schema of the network's own settings for a target (`targets[i].options`), listed as
   * `optionsSchema` by `GET /api/providers` and in the OpenAPI document. The API validates options
   * against it (compiled once, when the registry is built); without it, a target's options are refused.
   */
  readonly optionsSchema?: OptionsSchema;
  /** Endpoints and scopes, for `connectKind: 'oauth'`. */
  readonly oauth?: OAuthSpec;
  /**
   * The environment variables the plugin reads, each declared with its name, rules, default and
   * description (`setting.*` of src/config/settings.ts; `oauthAppSettings(...)` for an OAuth
   * network's client id, secret and overrides, which it must declare). They are validated with the
   * rest of the configuration when the registry is built, passed to `create` as `context.settings`,
   * and listed in `.env.example` (`npm run env:example`).
   */
  readonly settings?: S;
  /** Builds the adapter. Called once per process. */
  create(context: ProviderContext<S>): SocialProvider;
}

/**
 * Declares a plugin, keeping its id as a literal type (so `ProviderId` is the union of registered
 * ids) and typing `context.settings` by its `settings`.
 */
export function defineProvider<const Id extends string, S extends SettingsSpec = SettingsSpec>(
  plugin: ProviderPlugin<Id, S>,
): ProviderPlugin<Id, S> {
  return plugin;
}
