import { INestApplicationContext } from '@nestjs/common';
import { ApiKeysService } from '../auth/api-keys.service';
import { AppError } from '../common/errors';
import { ROLES, Role } from './membership.entity';
import { UsersService } from './users.service';

/** `users:create`: JSON out, like the keys commands. */
export async function usersCreate(app: INestApplicationContext, flags: Record<string, string>): Promise<unknown> {
  if (!flags.email) throw new AppError('VALIDATION_ERROR', '--email is required');
  if (!flags.workspace) throw new AppError('VALIDATION_ERROR', '--workspace is required');
  const role = (flags.role ?? 'member') as Role;
  if (!ROLES.includes(role)) throw new AppError('VALIDATION_ERROR', `--role must be one of ${ROLES.join(', ')}`);
  const users = app.get(UsersService);
  const workspace = await app.get(ApiKeysService).resolveWorkspace(flags.workspace, true);
  const existing = await users.findByEmail(flags.email);
  if (existing?.passwordHash) {
    await users.addMembership(existing.id, workspace.id, role);
    return { userId: existing.id, email: existing.email, workspaceId: workspace.id, role, setupLink: null };
  }
  const { link, url } = await users.createLink('invitation', workspace.id, flags.email, role);
  return {
    email: link.email,
    workspaceId: workspace.id,
    role,
    setupLink: url,
    expiresAt: link.expiresAt.toISOString(),
  };
}
