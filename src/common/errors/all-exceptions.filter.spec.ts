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
});
