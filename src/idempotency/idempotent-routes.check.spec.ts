import 'reflect-metadata';
import { Controller, Get, Post } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Public } from '../common/decorators/public.decorator';
import { IdempotentRoutesCheck } from './idempotent-routes.check';
import { Idempotent, IdempotentRouteHandler } from '../common/decorators/idempotent.decorator';

@Controller('marked')
class MarkedController {
  @Post()
  @Idempotent()
  create(): void {}

  @Get()
  list(): void {}
}

@Controller('forgotten')
class ForgottenController {
  @Post()
  create(): void {}

  @Post('public')
  @Public()
  callback(): void {}
}

@Public()
@Controller('console')
class ConsoleLikeController {
  @Post()
  submit(): void {}
}

async function compile(controllers: Array<new () => unknown>) {
  return Test.createTestingModule({
    imports: [DiscoveryModule],
    controllers,
    // The interceptor's dependency; the check reads route metadata only.
    providers: [IdempotentRoutesCheck, { provide: IdempotentRouteHandler, useValue: {} }],
  }).compile();
}

describe('IdempotentRoutesCheck', () => {
  it('accepts marked POST routes, reads and public POST routes', async () => {
    const moduleRef = await compile([MarkedController, ConsoleLikeController]);
    expect(moduleRef.get(IdempotentRoutesCheck).unmarkedPostRoutes()).toEqual([]);
    await expect(moduleRef.init()).resolves.toBeDefined();
    await moduleRef.close();
  });

  it('fails start-up naming an authenticated POST route without @Idempotent()', async () => {
    const moduleRef = await compile([MarkedController, ForgottenController, ConsoleLikeController]);
    expect(moduleRef.get(IdempotentRoutesCheck).unmarkedPostRoutes()).toEqual(['ForgottenController.create']);
    await expect(moduleRef.init()).rejects.toThrow(/must be marked @Idempotent\(\).*ForgottenController\.create/);
  });
});
