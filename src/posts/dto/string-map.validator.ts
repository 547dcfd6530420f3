import { ValidationOptions, registerDecorator } from 'class-validator';

/** An object of at most 50 string values, keys up to 64 and values up to 1024 characters. */
export function IsStringMap(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isStringMap',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: 'must map at most 50 keys (up to 64 characters) to strings (up to 1024 characters)',
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= 50 &&
          Object.entries(value).every(
            ([k, v]) => k.length > 0 && k.length <= 64 && typeof v === 'string' && v.length <= 1024,
          ),
      },
    });
}
