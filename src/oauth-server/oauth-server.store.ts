import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, MoreThan, Repository } from 'typeorm';
import type { ResolvedAccessToken } from '../auth/access-tokens.port';
import { deleteInBatches } from '../database/batched-delete';
import { OAuthAuthorizationCode } from './oauth-authorization-code.entity';
import { OAuthClient } from './oauth-client.entity';
import { OAuthGrant } from './oauth-grant.entity';
import { OAuthToken } from './oauth-token.entity';

/** A grant as the console lists it: with its client's name. */
export type ListedGrant = OAuthGrant & { clientName: string };

/** How long a used code or refresh token is kept past its expiry (SQL interval). */
const REPLAY_GRACE = "interval '1 day'";

/** The tables of the OAuth authorization server: clients, codes, grants and tokens (owned by oauth-server). */
@Injectable()
export class OAuthServerStore {
  constructor(
    @InjectRepository(OAuthClient) private readonly clients: Repository<OAuthClient>,
    @InjectRepository(OAuthAuthorizationCode) private readonly codes: Repository<OAuthAuthorizationCode>,
    @InjectRepository(OAuthGrant) private readonly grants: Repository<OAuthGrant>,
    @InjectRepository(OAuthToken) private readonly tokens: Repository<OAuthToken>,
  ) {}

  insertClient(client: Omit<OAuthClient, 'id' | 'createdAt'>): Promise<OAuthClient> {
    return this.clients.save(this.clients.create(client));
  }

  findClient(id: string): Promise<OAuthClient | null> {
    return this.clients.findOne({ where: { id } });
  }

  async insertCode(code: Omit<OAuthAuthorizationCode, 'createdAt' | 'usedAt' | 'grantId'>): Promise<void> {
    await this.codes.insert({ ...code, usedAt: null, grantId: null });
  }

  /** Marks the code used; true when this call did (a replay, or a second concurrent exchange, gets false). */
  async useCode(codeHash: string): Promise<boolean> {
    const result = await this.codes
      .createQueryBuilder()
      .update()
      .set({ usedAt: () => 'now()' })
      .where('code_hash = :codeHash AND used_at IS NULL', { codeHash })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  findCode(codeHash: string): Promise<OAuthAuthorizationCode | null> {
    return this.codes.findOne({ where: { codeHash } });
  }

  async setCodeGrant(codeHash: string, grantId: string): Promise<void> {
    await this.codes.update({ codeHash }, { grantId });
  }

  insertGrant(grant: Omit<OAuthGrant, 'id' | 'createdAt' | 'revokedAt'>): Promise<OAuthGrant> {
    return this.grants.save(this.grants.create({ ...grant, revokedAt: null }));
  }

  findGrant(id: string, workspaceId?: string): Promise<OAuthGrant | null> {
    return this.grants.findOne({ where: workspaceId ? { id, workspaceId } : { id } });
  }

  /** Marks the grant revoked now, unless it already is. */
  async revokeGrant(id: string): Promise<void> {
    await this.grants.update({ id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }

  /** The workspace's live grants, newest first, with their clients' names. */
  async liveGrants(workspaceId: string, limit: number): Promise<ListedGrant[]> {
    const rows = await this.grants
      .createQueryBuilder('g')
      .innerJoinAndSelect('g.client', 'c')
      .where('g.workspaceId = :workspaceId AND g.revokedAt IS NULL', { workspaceId })
      .orderBy('g.createdAt', 'DESC')
      .limit(limit)
      .getMany();
    return rows.map((g) => Object.assign(g, { clientName: g.client?.name ?? '?' }));
  }

  async insertTokens(tokens: Array<Pick<OAuthToken, 'tokenHash' | 'grantId' | 'kind' | 'expiresAt'>>): Promise<void> {
    await this.tokens.insert(tokens.map((t) => ({ ...t, usedAt: null })));
  }

  /** The hashes of the grant's access tokens that have not expired. */
  async liveAccessTokenHashes(grantId: string): Promise<string[]> {
    const rows = await this.tokens.find({
      select: { tokenHash: true },
      where: { grantId, kind: 'access', expiresAt: MoreThan(new Date()) },
    });
    return rows.map((r) => r.tokenHash);
  }

  findToken(tokenHash: string): Promise<OAuthToken | null> {
    return this.tokens.findOne({ where: { tokenHash } });
  }

  /** Marks an unused refresh token used; true when this call did (a second caller gets false). */
  async useRefreshToken(tokenHash: string): Promise<boolean> {
    const result = await this.tokens
      .createQueryBuilder()
      .update()
      .set({ usedAt: () => 'now()' })
      .where("token_hash = :tokenHash AND kind = 'refresh' AND used_at IS NULL", { tokenHash })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** The key and expiry of a live access token of a live grant. */
  async resolveAccessToken(tokenHash: string): Promise<ResolvedAccessToken | null> {
    const row = await this.tokens
      .createQueryBuilder('t')
      .innerJoin('t.grant', 'g')
      .innerJoin('g.client', 'c')
      .select(['t.expiresAt', 'g.apiKeyId', 'g.revokedAt'])
      .addSelect(['g.id', 'c.id', 'c.name'])
      .where("t.tokenHash = :tokenHash AND t.kind = 'access' AND t.expiresAt > now()", { tokenHash })
      .getOne();
    return row?.grant
      ? {
          apiKeyId: row.grant.apiKeyId,
          expiresAt: row.expiresAt,
          revoked: row.grant.revokedAt !== null,
          ...(row.grant.client ? { client: { id: row.grant.client.id, name: row.grant.client.name } } : {}),
        }
      : null;
  }

  /**
   * Deletes expired rows, in batches: access tokens once expired; authorization codes and refresh tokens
   * a day after (a used one presented again still revokes its grant until then, oauth-server.service).
   */
  async deleteExpired(batchSize: number, stop: () => boolean): Promise<{ codes: number; tokens: number }> {
    const query = (sql: string, params: unknown[]) => this.codes.manager.query(sql, params);
    const codes = await deleteInBatches(
      query,
      'oauth_authorization_codes',
      `SELECT code_hash FROM oauth_authorization_codes WHERE expires_at < now() - ${REPLAY_GRACE}`,
      [],
      batchSize,
      stop,
      'code_hash',
    );
    const tokens = stop()
      ? 0
      : await deleteInBatches(
          query,
          'oauth_tokens',
          `SELECT token_hash FROM oauth_tokens
            WHERE (kind = 'access' AND expires_at < now()) OR expires_at < now() - ${REPLAY_GRACE}`,
          [],
          batchSize,
          stop,
          'token_hash',
        );
    return { codes, tokens };
  }
}
