import { Injectable, OnModuleInit } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../common/decorators/public.decorator';
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
    const unscoped: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      const prototype = controller?.prototype as Record<string, unknown> | undefined;
      if (!controller || !prototype) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as (...args: unknown[]) => unknown;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller])) continue;
        if (!Reflect.getMetadata(REQUIRED_SCOPE, handler)) unscoped.push(`${controller.name}.${name}`);
      }
    }
    return unscoped;
  }
}
