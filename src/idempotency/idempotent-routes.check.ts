import { Injectable, OnModuleInit, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../common/decorators/public.decorator';
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
    const unmarked: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      const prototype = controller?.prototype as Record<string, unknown> | undefined;
      if (!controller || !prototype) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as (...args: unknown[]) => unknown;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        if (Reflect.getMetadata(METHOD_METADATA, handler) !== RequestMethod.POST) continue;
        if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller])) continue;
        if (!Reflect.getMetadata(IDEMPOTENT, handler)) unmarked.push(`${controller.name}.${name}`);
      }
    }
    return unmarked;
  }
}
