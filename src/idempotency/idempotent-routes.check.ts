import { Injectable, OnModuleInit, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { authenticatedRoutes } from '../common/http/authenticated-routes';
import { IDEMPOTENT } from '../common/decorators/idempotent.decorator';

/**
 * Fails start-up when a `POST` route that takes an API key is not marked `@Idempotent()`, so
 * `Idempotency-Key` cannot be silently ignored on a new endpoint. Public routes (console, OAuth
 * callbacks) carry no API key and are never idempotent.
 */
@Injectable()
export class IdempotentRoutesCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const unmarked = this.unmarkedPostRoutes();
    if (unmarked.length > 0) {
      throw new Error(
        `POST routes that take an API key must be marked @Idempotent() (src/common/decorators/idempotent.decorator.ts): ${unmarked.join(', ')}`,
      );
    }
  }

  /** `Controller.method` of every authenticated POST route without @Idempotent(). */
  unmarkedPostRoutes(): string[] {
    return authenticatedRoutes(this.discovery, this.scanner, this.reflector)
      .filter((route) => Reflect.getMetadata(METHOD_METADATA, route.handler) === RequestMethod.POST)
      .filter((route) => !Reflect.getMetadata(IDEMPOTENT, route.handler))
      .map((route) => route.name);
  }
}
