import { readDatabaseEnv } from './database.config';
import { ConfigValidationError } from './validate-env';

describe('database configuration', () => {
  it('bounds every wait on Postgres by default', () => {
    expect(readDatabaseEnv({}).timeouts).toEqual({
      connectMs: 5_000,
      statementMs: 15_000,
      queryMs: 20_000,
      idleInTransactionMs: 60_000,
      probeMs: 2_000,
    });
  });

  it.each([
    ['DATABASE_CONNECT_TIMEOUT_MS', '0'],
    ['DATABASE_CONNECT_TIMEOUT_MS', 'soon'],
    ['DATABASE_QUERY_TIMEOUT_MS', '0'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
    ['DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', '1.5'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => readDatabaseEnv({ [name]: value })).toThrow(ConfigValidationError);
    expect(() => readDatabaseEnv({ [name]: value })).toThrow(new RegExp(`${name}=`));
  });

  it('wants the query deadline above the statement timeout, so Postgres cancels a statement itself first', () => {
    expect(() =>
      readDatabaseEnv({ DATABASE_STATEMENT_TIMEOUT_MS: '20000', DATABASE_QUERY_TIMEOUT_MS: '20000' }),
    ).toThrow(/DATABASE_QUERY_TIMEOUT_MS \(20000\) must be above DATABASE_STATEMENT_TIMEOUT_MS/);
    expect(
      readDatabaseEnv({
        DATABASE_STATEMENT_TIMEOUT_MS: '0',
        DATABASE_QUERY_TIMEOUT_MS: '1000',
        DATABASE_PROBE_TIMEOUT_MS: '500',
      }).timeouts,
    ).toEqual(expect.objectContaining({ statementMs: 0, queryMs: 1_000 }));
  });
});
