import { hashPassword, verifyPassword } from './password';

describe('password hashing (scrypt)', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterx', stored)).toBe(false);
  });

  it('salts: the same password hashes differently', async () => {
    expect(await hashPassword('same password')).not.toBe(await hashPassword('same password'));
  });

  it('refuses malformed stored hashes without throwing', async () => {
    for (const bad of ['', 'plain', 'scrypt$1$2$3', 'argon2$1$1$1$a$b', 'scrypt$x$8$1$AAAA$BBBB']) {
      expect(await verifyPassword('x', bad)).toBe(false);
    }
  });
});
