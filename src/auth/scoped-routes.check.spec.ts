import 'reflect-metadata';
import { Controller, Delete, Get, Post } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Public } from '../common/decorators/public.decorator';
import { RequiredScope } from './scope.decorator';
import { ScopedRoutesCheck } from './scoped-routes.check';

@Controller('scoped')
class ScopedController {
  @Get()
  @RequiredScope('posts:read')
  list(): void {}

  @Post()
  @RequiredScope('posts:write')
  create(): void {}

  /** Not a route: needs nothing. */
  helper(): void {}
}

@Controller('forgotten')
class ForgottenController {
  @Get()
  @RequiredScope('posts:read')
  list(): void {}

  @Delete(':id')
  remove(): void {}

  @Get('health')
  @Public()
  health(): void {}
}

@Public()
@Controller('console')
class ConsoleLikeController {
  @Get()
  page(): void {}
}

async function compile(controllers: Array<new () => unknown>) {
  return Test.createTestingModule({
    imports: [DiscoveryModule],
    controllers,
    providers: [ScopedRoutesCheck],
  }).compile();
}

describe('ScopedRoutesCheck', () => {
  it('accepts routes that declare a scope, and public routes', async () => {
    const moduleRef = await compile([ScopedController, ConsoleLikeController]);
    expect(moduleRef.get(ScopedRoutesCheck).unscopedRoutes()).toEqual([]);
    await expect(moduleRef.init()).resolves.toBeDefined();
    await moduleRef.close();
  });

  it('fails start-up naming an authenticated route that declares no scope', async () => {
    const moduleRef = await compile([ScopedController, ForgottenController, ConsoleLikeController]);
    expect(moduleRef.get(ScopedRoutesCheck).unscopedRoutes()).toEqual(['ForgottenController.remove']);
    await expect(moduleRef.init()).rejects.toThrow(/must declare their scope.*ForgottenController\.remove/);
  });
});
