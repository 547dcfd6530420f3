import type { ValidationError } from '@nestjs/common';
import { getMetadataStorage, IsInt, IsOptional, IsString, MaxLength, MetadataStorage } from 'class-validator';
import { createValidationPipe, toErrorDetails } from './validation.pipe';

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

describe('memoizeValidationRules', () => {
  class Query {
    @IsOptional()
    @IsInt()
    limit?: number;
  }
  class NamedQuery extends Query {
    @IsString()
    name!: string;
  }
  const storage = getMetadataStorage();
  const pipe = createValidationPipe(); // memoizes the global storage
  const query = (metatype: new () => object, value: object) => pipe.transform(value, { type: 'query', metatype });

  it('answers what class-validator answers, inherited rules included, and keeps the answer', () => {
    const unmemoized = MetadataStorage.prototype.getTargetValidationMetadatas;
    for (const target of [Query, NamedQuery]) {
      const first = storage.getTargetValidationMetadatas(target, '', false, false);
      expect(first).toEqual(unmemoized.call(storage, target, '', false, false));
      expect(storage.getTargetValidationMetadatas(target, '', false, false)).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
    }
    expect(storage.getTargetValidationMetadatas(NamedQuery, '', false, false).map((r) => r.propertyName)).toEqual(
      expect.arrayContaining(['limit', 'name']),
    );
  });

  it('validates as before, and sees a rule added after an answer was kept', async () => {
    await expect(query(Query, { limit: 'x' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(query(NamedQuery, { name: 'a' })).resolves.toEqual(Object.assign(new NamedQuery(), { name: 'a' }));
    await expect(query(NamedQuery, { name: 'a', other: 1 })).rejects.toMatchObject({
      message: "other: unknown field 'other'",
    });
    MaxLength(2)(NamedQuery.prototype, 'name');
    await expect(query(NamedQuery, { name: 'abc' })).rejects.toMatchObject({
      details: [{ field: 'name', message: 'must be shorter than or equal to 2 characters' }],
    });
  });
});
