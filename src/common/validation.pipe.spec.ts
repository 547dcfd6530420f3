import type { ValidationError } from '@nestjs/common';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  getMetadataStorage,
  IsInt,
  IsOptional,
  IsString,
  MaxLength,
  MetadataStorage,
} from 'class-validator';
import { createValidationPipe, toErrorDetails } from './validation.pipe';

const error = (
  property: string,
  constraints?: Record<string, string>,
  children: ValidationError[] = [],
  value: unknown = 'given',
): ValidationError => ({ property, constraints, children, value });

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
      { field: 'thread[1].content', message: 'must be at most 10 characters long' },
      { field: 'extra', message: 'is not a known field' },
    ]);
  });

  it("says a field left out is required, and words class-validator's messages for a person", () => {
    const details = toErrorDetails([
      // A field left out: class-validator gives its error an own `value` of undefined.
      {
        ...error('content', { maxLength: 'content must be shorter than or equal to 10 characters' }),
        value: undefined,
      },
      error('ids', { arrayMinSize: 'ids must contain at least 1 elements' }),
      error('more', { arrayMaxSize: 'more must contain no more than 20 elements' }),
      error('once', { arrayUnique: "All once's elements must be unique" }),
      error('tags', { isString: 'each value in tags must be a string' }),
      error('kind', { isIn: 'kind must be one of the following values: a, b' }),
      error('on', { isBoolean: 'on must be a boolean value' }),
      error('n', { min: 'n must not be less than 1' }),
      error('parts', { isArray: 'parts must be an array' }, [error('0', { nestedValidation: 'x' })]),
    ]);
    expect(details).toEqual([
      { field: 'content', message: 'is required' },
      { field: 'ids', message: 'must contain at least 1 item' },
      { field: 'more', message: 'must contain at most 20 items' },
      { field: 'once', message: 'must not contain duplicates' },
      { field: 'tags', message: 'each value must be a string' },
      { field: 'kind', message: 'must be one of: a, b' },
      { field: 'on', message: 'must be a boolean' },
      { field: 'n', message: 'must be at least 1' },
      { field: 'parts', message: 'must be an array' }, // what is inside a failed field is not looked at
    ]);
  });
});

describe('the global pipe', () => {
  class Body {
    @IsString()
    @MaxLength(5)
    text!: string;

    @IsArray()
    @ArrayMinSize(1)
    @ArrayUnique()
    @IsString({ each: true })
    list!: string[];
  }
  const pipe = createValidationPipe();
  const body = (value: object) => pipe.transform(value, { type: 'body', metatype: Body });

  it('reports the first rule of a field in the order written, the type first', async () => {
    await expect(body({})).rejects.toMatchObject({
      message: 'text is required; list is required',
      details: [
        { field: 'text', message: 'is required' },
        { field: 'list', message: 'is required' },
      ],
    });
    await expect(body({ text: 5, list: 'a' })).rejects.toMatchObject({
      message: 'text must be a string; list must be an array',
    });
    await expect(body({ text: 'too long', list: [] })).rejects.toMatchObject({
      message: 'text must be at most 5 characters long; list must contain at least 1 item',
    });
    await expect(body({ text: 'ok', list: [1, 1] })).rejects.toMatchObject({
      details: [{ field: 'list', message: 'must not contain duplicates' }],
    });
    await expect(body({ text: 'ok', list: [1] })).rejects.toMatchObject({
      message: 'list: each value must be a string',
    });
  });
});

describe('prepareValidationRules', () => {
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

  it('answers what class-validator answers (in reading order), inherited rules included, and keeps the answer', () => {
    const unmemoized = MetadataStorage.prototype.getTargetValidationMetadatas;
    for (const target of [Query, NamedQuery]) {
      const first = storage.getTargetValidationMetadatas(target, '', false, false);
      expect(new Set(first)).toEqual(new Set(unmemoized.call(storage, target, '', false, false)));
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
      message: 'other is not a known field',
    });
    MaxLength(2)(NamedQuery.prototype, 'name');
    await expect(query(NamedQuery, { name: 'abc' })).rejects.toMatchObject({
      details: [{ field: 'name', message: 'must be at most 2 characters long' }],
    });
  });
});
