import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { authenticatedRoutes } from '../common/http/authenticated-routes';
import { REQUIRED_SCOPE } from './scope.decorator';

/**
 * Fails start-up when a route that takes an API key declares no scope (@RequiredScope()), so a new
 * endpoint cannot be open to every key by omission. Public routes (console, OAuth callbacks, health)
 * carry no API key and need none.
 */
@Injectable()
export class ScopedRoutesCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const unscoped = this.unscopedRoutes();
    if (unscoped.length > 0) {
      throw new Error(
        `Routes that take an API key must declare their scope with @RequiredScope() (src/auth/scope.decorator.ts): ${unscoped.join(', ')}`,
      );
    }
  }

  /** `Controller.method` of every authenticated route without @RequiredScope(). */
  unscopedRoutes(): string[] {
    return authenticatedRoutes(this.discovery, this.scanner, this.reflector)
      .filter((route) => !Reflect.getMetadata(REQUIRED_SCOPE, route.handler))
      .map((route) => route.name);
  }
}
