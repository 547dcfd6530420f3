import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventRecord } from './event.entity';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';

/** Global: every feature records events through EventsService.record(em, ...). */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([EventRecord])],
  controllers: [EventsController],
  providers: [EventsService],
  exports: [EventsService],
})
export class EventsModule {}
