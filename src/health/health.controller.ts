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
  @ApiOperation({
    summary: 'Liveness and dependency check (no API key needed)',
    description:
      'Whether the database and Redis answer (and whether ffprobe/ffmpeg were found, which only informs). 200 ' +
      'when both answer, 503 with the same body when one does not.',
    security: [],
  })
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
    description: 'For orchestrators: 200 whenever the process answers at all; no answer means a restart is due.',
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
    description:
      'For load balancers: 200 when this process can serve requests, 503 (with the failing checks) while a ' +
      'dependency is unreachable or the process is draining on SIGTERM.',
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
