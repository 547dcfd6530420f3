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
 * Takes one attempt for an address and an account, atomically: refused (0) when either counter has
 * reached its limit, otherwise both are incremented (each starting a window of ARGV[3] ms when new)
 * and 1 is returned. KEYS = address counter, account counter; ARGV = address limit, account limit,
 * window ms.
 */
const TAKE_ATTEMPT_LUA = `
local byAddress = tonumber(redis.call('GET', KEYS[1]) or '0')
local byAccount = tonumber(redis.call('GET', KEYS[2]) or '0')
if byAddress >= tonumber(ARGV[1]) or byAccount >= tonumber(ARGV[2]) then return 0 end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3], 'NX')
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3], 'NX')
return 1
`;

type AttemptRedis = Redis & {
  takeLoginAttempt(
    address: string,
    account: string,
    perAddress: number,
    perAccount: number,
    windowMs: number,
  ): Promise<number>;
};

/**
 * Password sign-in. Attempts count per client address and per email (existing or not) in 15-minute
 * windows, and each is counted before its password is checked, in one Redis script: parallel
 * attempts cannot all pass a check made before any of them failed. At either limit every attempt
 * gets 429 until the window ends, without a password check. A right password gives its attempt
 * back to the address and clears the account's count. An unknown email costs the same scrypt work
 * and gets the same message as a wrong password.
 */
@Injectable()
export class LoginService {
  private readonly redis: AttemptRedis;

  constructor(
    private readonly users: UsersService,
    @Inject(REDIS) redis: Redis,
    @Inject(consoleConfig.KEY) private readonly cfg: ConfigType<typeof consoleConfig>,
  ) {
    redis.defineCommand('takeLoginAttempt', { numberOfKeys: 2, lua: TAKE_ATTEMPT_LUA });
    this.redis = redis as AttemptRedis;
  }

  async login(email: string, password: string, clientIp: string): Promise<User> {
    const keys = this.counterKeys(email, clientIp);
    const counted = await this.takeAttempt(keys);
    const user = email ? await this.users.findByEmail(email) : null;
    const ok = user?.passwordHash
      ? await verifyPassword(password, user.passwordHash)
      : await verifyPassword(password, await DUMMY_HASH_PROMISE()).then(() => false);
    if (!ok || !user) throw new AppError('UNAUTHORIZED', WRONG_CREDENTIALS);
    if (counted) {
      await this.redis
        .multi()
        .decr(keys.address)
        .del(keys.account)
        .exec()
        .catch(() => undefined);
    }
    return user;
  }

  private counterKeys(email: string, ip: string) {
    const account = createHash('sha256').update(normalizeEmail(email)).digest('hex').slice(0, 32);
    return { address: `login:ip:${ip}`, account: `login:acct:${account}` };
  }

  /** Counts the attempt, or throws 429 at a limit. False when Redis did not answer (nothing counted). */
  private async takeAttempt(keys: { address: string; account: string }): Promise<boolean> {
    let taken: number;
    try {
      taken = await this.redis.takeLoginAttempt(
        keys.address,
        keys.account,
        this.cfg.loginFailuresPerAddress,
        this.cfg.loginFailuresPerAccount,
        this.cfg.loginWindowMs,
      );
    } catch {
      return false; // Redis down: fail open; passwords are still checked with scrypt.
    }
    if (taken === 1) return true;
    throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many failed sign-ins; wait a few minutes and try again', undefined, {
      'Retry-After': Math.ceil(this.cfg.loginWindowMs / 1000),
    });
  }
}
