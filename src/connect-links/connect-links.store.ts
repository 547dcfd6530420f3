import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { Page } from '../common/pagination/pagination';
import { paginate } from '../database/keyset-pagination';
import { ConnectLink } from './connect-link.entity';

/** The `connect_links` table (owned by connect-links). */
@Injectable()
export class ConnectLinksStore {
  constructor(@InjectRepository(ConnectLink) private readonly links: Repository<ConnectLink>) {}

  insert(link: Omit<ConnectLink, 'id' | 'createdAt' | 'workspace' | 'revokedAt'>): Promise<ConnectLink> {
    return this.links.save(this.links.create({ ...link, revokedAt: null }));
  }

  find(workspaceId: string, id: string): Promise<ConnectLink | null> {
    return this.links.findOne({ where: { id, workspaceId } });
  }

  /** A link by id in any workspace: for the OAuth callback, which holds the id from its own state row. */
  findById(id: string): Promise<ConnectLink | null> {
    return this.links.findOne({ where: { id } });
  }

  /** The link whose URL carries the token with this hash. */
  findByTokenHash(tokenHash: string): Promise<ConnectLink | null> {
    return this.links.findOne({ where: { tokenHash } });
  }

  page(workspaceId: string, q: { limit: number; cursor?: string }): Promise<Page<ConnectLink>> {
    const qb = this.links.createQueryBuilder('l').where('l.workspace_id = :workspaceId', { workspaceId });
    return paginate(qb, {
      sortColumn: 'l.created_at',
      idColumn: 'l.id',
      direction: 'DESC',
      limit: q.limit,
      cursor: q.cursor,
    });
  }

  /** Sets revoked_at now unless it is set already. */
  async revoke(workspaceId: string, id: string): Promise<void> {
    await this.links.update({ id, workspaceId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }
}
