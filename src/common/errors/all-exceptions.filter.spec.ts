import { QueryFailedError } from 'typeorm';
import { toErrorResponse } from './all-exceptions.filter';

describe('toErrorResponse', () => {
  it('answers 409 CONFLICT for a foreign-key violation (a referenced row deleted meanwhile), raw or wrapped', () => {
    const pgError = Object.assign(new Error('insert or update on table "webhook_deliveries" violates foreign key'), {
      code: '23503',
    });
    const wrapped = new QueryFailedError('INSERT INTO webhook_deliveries ...', [], pgError);
    for (const err of [pgError, wrapped]) {
      expect(toErrorResponse(err)).toEqual({
        status: 409,
        body: { error: 'CONFLICT', message: expect.stringContaining('deleted meanwhile') },
      });
    }
  });

  it('keeps other database errors internal', () => {
    const other = Object.assign(new Error('division by zero'), { code: '22012' });
    expect(toErrorResponse(other)).toEqual({
      status: 500,
      body: { error: 'INTERNAL_ERROR', message: 'Internal server error' },
    });
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when the database refuses, drops or does not answer', () => {
    const pg = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
    const cases: Array<[Error, RegExp]> = [
      [pg('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), /cannot be reached/],
      [pg('Connection terminated unexpectedly'), /cannot be reached/],
      [pg('Connection terminated due to connection timeout'), /in time/],
      [pg('timeout exceeded when trying to connect'), /in time/],
      [pg('No answer from the database within 2000 ms; the connection was dropped', 'ETIMEDOUT'), /in time/],
      [pg('canceling statement due to statement timeout', '57014'), /in time/],
      [pg('terminating connection due to administrator command', '57P01'), /cannot be reached/],
      [pg('the database system is starting up', '57P03'), /cannot be reached/],
      [pg('sorry, too many clients already', '53300'), /cannot be reached/],
      [pg('terminating connection due to idle-in-transaction timeout', '25P03'), /cannot be reached/],
      [new QueryFailedError('SELECT 1', [], pg('Connection terminated unexpectedly')), /cannot be reached/],
      [new QueryFailedError('SELECT 1', [], pg('canceling statement due to statement timeout', '57014')), /in time/],
    ];
    for (const [err, message] of cases) {
      expect(toErrorResponse(err)).toEqual({
        status: 503,
        body: { error: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(message) },
        headers: { 'Retry-After': expect.any(Number) },
      });
    }
  });
});
