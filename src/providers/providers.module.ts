import { Global, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { OutboundHttp } from '../common/http/outbound-http';
import { appConfig } from '../config';
import { ProviderRegistry, createProviderRegistry } from './provider.registry';

/** Closes the keep-alive sockets of the shared client on shutdown. */
@Injectable()
class OutboundHttpCloser implements OnApplicationShutdown {
  constructor(private readonly http: OutboundHttp) {}

  onApplicationShutdown(): void {
    this.http.close();
  }
}

/** The outbound HTTP client (SSRF-guarded) and the provider adapters, shared by every feature. */
@Global()
@Module({
  providers: [
    {
      provide: OutboundHttp,
      inject: [appConfig.KEY],
      useFactory: (app: ConfigType<typeof appConfig>) => new OutboundHttp({ allowPrivate: app.outboundAllowPrivate }),
    },
    OutboundHttpCloser,
    {
      provide: ProviderRegistry,
      inject: [OutboundHttp],
      useFactory: (http: OutboundHttp) => createProviderRegistry(http),
    },
  ],
  exports: [OutboundHttp, ProviderRegistry],
})
export class ProvidersModule {}
