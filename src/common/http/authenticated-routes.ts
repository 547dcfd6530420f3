import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PATH_METADATA } from '@nestjs/common/constants';
import { IS_PUBLIC } from '../decorators/public.decorator';

/** One route handler of a controller that takes an API key (not `@Public()`). */
export interface AuthenticatedRoute {
  /** `Controller.method`, as start-up errors name it. */
  name: string;
  handler: (...args: unknown[]) => unknown;
}

/**
 * Every route of the application's controllers that takes an API key: what the start-up checks of
 * route declarations (@RequiredScope(), @Idempotent()) walk.
 */
export function authenticatedRoutes(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  reflector: Reflector,
): AuthenticatedRoute[] {
  const routes: AuthenticatedRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
    const prototype = controller?.prototype as Record<string, unknown> | undefined;
    if (!controller || !prototype) continue;
    for (const method of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[method] as (...args: unknown[]) => unknown;
      if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      if (reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller])) continue;
      routes.push({ name: `${controller.name}.${method}`, handler });
    }
  }
  return routes;
}
