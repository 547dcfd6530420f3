import { registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';
import { validateEnv } from './validate-env';

const BASE_URL_RULES = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };
const ENDS_WITH_API = { message: 'must be an absolute http(s) address ending with /api' };

/** How the HTTP listener is reached: the documented environments, TLS, and the proxy in front of it. */
export class HttpEnv {
  /** Public address of the production environment, e.g. `https://api.example.com/api`. */
  @IsOptional()
  @IsUrl(BASE_URL_RULES, ENDS_WITH_API)
  @Matches(/\/api$/, ENDS_WITH_API)
  PRODUCTION_BASE_URL?: string = undefined;

  /** Public address of the development environment, e.g. `https://dev.example.com/api`. */
  @IsOptional()
  @IsUrl(BASE_URL_RULES, ENDS_WITH_API)
  @Matches(/\/api$/, ENDS_WITH_API)
  DEVELOPMENT_BASE_URL?: string = undefined;

  /** Address of a developer's local instance, e.g. `https://localhost:3000/api`. */
  @IsOptional()
  @IsUrl(BASE_URL_RULES, ENDS_WITH_API)
  @Matches(/\/api$/, ENDS_WITH_API)
  LOCAL_BASE_URL?: string = undefined;

  /** PEM certificate (chain) file; with TLS_KEY_FILE the service listens over HTTPS. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  TLS_CERT_FILE?: string = undefined;

  /** PEM private key file of TLS_CERT_FILE. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  TLS_KEY_FILE?: string = undefined;

  /**
   * Which proxies are trusted for `X-Forwarded-For`/`-Proto`: `false` (default: none), `true`
   * (any), a hop count (`1` = the nearest proxy), or comma-separated addresses/CIDRs.
   */
  @IsString()
  @Matches(/^(true|false|\d{1,2}|[0-9a-fA-F.:/]+(\s*,\s*[0-9a-fA-F.:/]+)*)$/, {
    message: 'must be true, false, a hop count, or comma-separated addresses/CIDR ranges',
  })
  TRUST_PROXY: string = 'false';

  /**
   * On SIGTERM, how long an API process keeps accepting connections (answering each with
   * `Connection: close`) while `/api/health/ready` answers 503, so that load balancers take it out
   * before its listener closes; then new connections are refused and accepted ones are answered.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_DRAIN_DELAY_MS: number = 1_000;
}

/** One documented environment of the service, as listed in the OpenAPI document's `servers`. */
export interface ServerEnvironment {
  url: string;
  description: string;
  /** Values of the `{name}` placeholders in `url` (OpenAPI server variables), with their defaults. */
  variables?: Record<string, { default: string; description?: string }>;
}

export type TrustProxy = boolean | number | string[];

export function parseTrustProxy(value: string): TrustProxy {
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^\d+$/.test(v)) return Number(v);
  return v.split(',').map((s) => s.trim());
}

/**
 * Fastify's `trustProxy` for a parsed TRUST_PROXY. Since 5.12 Fastify trusts nobody when given a
 * number, so a hop count `n` becomes the function it used to build for one: the `n` nearest hops.
 */
export function trustProxyOption(value: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof value !== 'number') return value;
  return value > 0 && ((_address: string, hop: number) => hop < value);
}

/** The configured environments in a fixed order: production, development, local; unset ones left out. */
export function serverEnvironments(env: {
  production?: string;
  development?: string;
  local?: string;
}): ServerEnvironment[] {
  const list: ServerEnvironment[] = [];
  if (env.production) list.push({ url: env.production, description: 'Production' });
  if (env.development) list.push({ url: env.development, description: 'Development' });
  if (env.local) list.push({ url: env.local, description: 'Local (HTTPS)' });
  return list;
}

export const httpConfig = registerAs('http', () => {
  const env = validateEnv(HttpEnv);
  if (Boolean(env.TLS_CERT_FILE) !== Boolean(env.TLS_KEY_FILE)) {
    throw new Error('Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  return {
    servers: serverEnvironments({
      production: env.PRODUCTION_BASE_URL,
      development: env.DEVELOPMENT_BASE_URL,
      local: env.LOCAL_BASE_URL,
    }),
    tls: env.TLS_CERT_FILE && env.TLS_KEY_FILE ? { certFile: env.TLS_CERT_FILE, keyFile: env.TLS_KEY_FILE } : null,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    drainDelayMs: env.SHUTDOWN_DRAIN_DELAY_MS,
  };
});
export type HttpConfig = ReturnType<typeof httpConfig>;
