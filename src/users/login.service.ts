import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import Redis from 'ioredis';
import { AppError } from '../common/errors';
import { consoleConfig } from '../config';
import { REDIS } from '../redis/redis.module';
import { DUMMY_HASH_PROMISE, verifyPassword } from './password';
import { User } from './user.entity';
import { UsersService, normalizeEmail } from './users.service';

export const WRONG_CREDENTIALS = 'Wrong email or password';

/**
 * Password sign-in. Failures count per client address and per email (existing or not) in
 * 15-minute windows; above either limit every attempt gets 429 until the window ends. An unknown
 * email costs the same scrypt work and gets the same message as a wrong password.
 */
@Injectable()
export class LoginService {
  constructor(
    private readonly users: UsersService,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(consoleConfig.KEY) private readonly cfg: ConfigType<typeof consoleConfig>,
  ) {}

  async login(email: string, password: string, clientIp: string): Promise<User> {
    const keys = this.counterKeys(email, clientIp);
    await this.assertUnderLimits(keys);
    const user = email ? await this.users.findByEmail(email) : null;
    const ok = user?.passwordHash
      ? await verifyPassword(password, user.passwordHash)
      : await verifyPassword(password, await DUMMY_HASH_PROMISE()).then(() => false);
    if (!ok || !user) {
      await this.countFailure(keys);
      throw new AppError('UNAUTHORIZED', WRONG_CREDENTIALS);
    }
    await this.redis.del(keys.account).catch(() => undefined);
    return user;
  }

  private counterKeys(email: string, ip: string) {
    const account = createHash('sha256').update(normalizeEmail(email)).digest('hex').slice(0, 32);
    return { address: `login:ip:${ip}`, account: `login:acct:${account}` };
  }

  private async assertUnderLimits(keys: { address: string; account: string }): Promise<void> {
    let counts: Array<string | null>;
    try {
      counts = await this.redis.mget(keys.address, keys.account);
    } catch {
      return; // Redis down: fail open; passwords are still checked with scrypt.
    }
    const [byAddress, byAccount] = counts.map((c) => Number(c ?? 0));
    if (byAddress >= this.cfg.loginFailuresPerAddress || byAccount >= this.cfg.loginFailuresPerAccount) {
      const retryAfter = Math.ceil(this.cfg.loginWindowMs / 1000);
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        'Too many failed sign-ins; wait a few minutes and try again',
        undefined,
        { 'Retry-After': retryAfter },
      );
    }
  }

  private async countFailure(keys: { address: string; account: string }): Promise<void> {
    const window = this.cfg.loginWindowMs;
    await this.redis
      .multi()
      .incr(keys.address)
      .pexpire(keys.address, window, 'NX')
      .incr(keys.account)
      .pexpire(keys.account, window, 'NX')
      .exec()
      .catch(() => undefined);
  }
}
