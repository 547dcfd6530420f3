import type { ValidationError } from '@nestjs/common';
import { toErrorDetails } from './validation.pipe';

const error = (
  property: string,
  constraints?: Record<string, string>,
  children: ValidationError[] = [],
): ValidationError => ({ property, constraints, children });

describe('toErrorDetails', () => {
  it('names nested fields by path: dots for properties, brackets for array items', () => {
    const details = toErrorDetails([
      error('content', { isString: 'content must be a string' }),
      error('thread', undefined, [
        error('1', undefined, [
          error('content', { maxLength: 'content must be shorter than or equal to 10 characters' }),
        ]),
      ]),
      error('extra', { whitelistValidation: 'property extra should not exist' }),
    ]);
    expect(details).toEqual([
      { field: 'content', message: 'must be a string' },
      { field: 'thread[1].content', message: 'must be shorter than or equal to 10 characters' },
      { field: 'extra', message: "unknown field 'extra'" },
    ]);
  });
});
