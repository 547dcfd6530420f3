import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventRecord } from './event.entity';
import { EventOutboxStore } from './event-outbox.store';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';

/**
 * Global: every feature records events through EventsService.record(em, ...); webhooks read the
 * outbox through EventOutboxStore.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([EventRecord])],
  controllers: [EventsController],
  providers: [EventsService, EventOutboxStore],
  exports: [EventsService, EventOutboxStore],
})
export class EventsModule {}
