import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { HealthDto, LivenessDto, ReadinessDto } from './health.dto';
import { HealthService } from './health.service';

@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Liveness and dependency check (no API key needed)', security: [] })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({ type: HealthDto, description: 'A dependency is down' })
  async getHealth(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthDto> {
    const result = await this.health.check();
    if (result.status !== 'ok') void reply.status(503);
    return result;
  }

  @Get('live')
  @Public()
  @ApiOperation({
    summary: 'Liveness probe: the process answers (no dependency is checked; no API key needed)',
    security: [],
  })
  @ApiOkResponse({ type: LivenessDto })
  live(): LivenessDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @ApiOperation({
    summary: 'Readiness probe for load balancers: database, Redis and media storage reachable (no API key needed)',
    security: [],
  })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ type: ReadinessDto, description: 'A dependency is down or the process is stopping' })
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessDto> {
    const result = await this.health.ready();
    if (result.status !== 'ok') void reply.status(503);
    return result;
  }
}
