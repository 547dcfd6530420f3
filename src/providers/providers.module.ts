import { Global, Injectable, InjectionToken, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { OutboundHttp } from '../common/http/outbound-http';
import { appConfig } from '../config';
import { PROVIDER_PLUGINS } from './provider.list';
import { ProviderRegistry, createProviderRegistry } from './provider.registry';
import { ProvidersController } from './providers.controller';
import { ProvidersService } from './providers.service';

/** What plugins declare they need (docs/adding-a-provider.md); most need nothing. */
const PLUGIN_TOKENS = [...new Set(PROVIDER_PLUGINS.flatMap((p) => p.inject ?? []))];

function resolveFrom<T>(resolved: Map<InjectionToken, unknown>, token: InjectionToken<T>): T {
  if (!resolved.has(token)) throw new Error(`A provider plugin resolved ${String(token)} without listing it in inject`);
  return resolved.get(token) as T;
}

/** Closes the keep-alive sockets of the shared client on shutdown. */
@Injectable()
class OutboundHttpCloser implements OnApplicationShutdown {
  constructor(private readonly http: OutboundHttp) {}

  onApplicationShutdown(): void {
    this.http.close();
  }
}

/** The outbound HTTP client (SSRF-guarded), the provider adapters and their listing, shared by every feature. */
@Global()
@Module({
  controllers: [ProvidersController],
  providers: [
    {
      provide: OutboundHttp,
      inject: [appConfig.KEY],
      useFactory: (app: ConfigType<typeof appConfig>) => new OutboundHttp({ allowPrivate: app.outboundAllowPrivate }),
    },
    OutboundHttpCloser,
    ProvidersService,
    {
      provide: ProviderRegistry,
      inject: [OutboundHttp, ...PLUGIN_TOKENS],
      useFactory: (http: OutboundHttp, ...values: unknown[]) => {
        const resolved = new Map<InjectionToken, unknown>(PLUGIN_TOKENS.map((token, i) => [token, values[i]]));
        return createProviderRegistry({ http, resolve: (token) => resolveFrom(resolved, token) });
      },
    },
  ],
  exports: [OutboundHttp, ProviderRegistry, ProvidersService],
})
export class ProvidersModule {}
