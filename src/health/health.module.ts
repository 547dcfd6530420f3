import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { HttpDrainService } from './http-drain.service';

@Module({
  imports: [MediaModule],
  controllers: [HealthController],
  providers: [HealthService, HttpDrainService],
  exports: [HealthService],
})
export class HealthModule {}
