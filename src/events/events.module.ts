import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { describeEventPayloads } from './dto/event.dto';
import { EventRecord } from './event.entity';
import type { EventSchemas } from './event-payloads';
import { EventOutboxStore } from './event-outbox.store';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';
import { EventsStore } from './events.store';

/**
 * Global: every feature records events through EventsService.record(em, ...); webhooks read the
 * outbox through EventOutboxStore. Loaded once, by the composition root, with the schemas of every
 * feature's events (for the OpenAPI document of GET /events and of webhook payloads).
 */
@Module({})
export class EventsModule {
  static forRoot(schemas: EventSchemas): DynamicModule {
    describeEventPayloads(schemas);
    return {
      module: EventsModule,
      global: true,
      imports: [TypeOrmModule.forFeature([EventRecord])],
      controllers: [EventsController],
      providers: [EventsService, EventsStore, EventOutboxStore],
      exports: [EventsService, EventOutboxStore],
    };
  }
}
