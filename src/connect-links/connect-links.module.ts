import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProvidersModule } from '../providers/providers.module';
import { ConnectLink } from './connect-link.entity';
import { ConnectLinksController } from './connect-links.controller';
import { ConnectLinksService } from './connect-links.service';
import { ConnectLinksStore } from './connect-links.store';

/**
 * Hosted connect links (docs/adr/0055): the `connect_links` table and `/api/connect-links`. The page
 * people open is the console's (src/console/connect-page.controller.ts); the OAuth callback asks this
 * module through oauth's CONNECT_LINK_GATE port whether a link may still connect.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ConnectLink]), ProvidersModule],
  controllers: [ConnectLinksController],
  providers: [ConnectLinksService, ConnectLinksStore],
  exports: [ConnectLinksService],
})
export class ConnectLinksModule {}
