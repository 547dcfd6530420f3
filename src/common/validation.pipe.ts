import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorDetail } from './errors';

/**
 * class-validator errors as `{field, message}` details, nested fields as paths under `parent`:
 * dotted for properties, bracketed for array items (`thread[1].content`).
 */
export function toErrorDetails(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((e) => {
    const field = /^\d+$/.test(e.property)
      ? `${parent}[${e.property}]`
      : parent
        ? `${parent}.${e.property}`
        : e.property;
    const own = Object.entries(e.constraints ?? {}).map(([kind, message]) => ({
      field,
      message: kind === 'whitelistValidation' ? `unknown field '${e.property}'` : message.replace(`${e.property} `, ''),
    }));
    return [...own, ...toErrorDetails(e.children ?? [], field)];
  });
}

/** The global validation pipe: strips nothing silently (unknown fields are 400) and reports every field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => {
      const details = toErrorDetails(errors);
      const message = details.map((d) => `${d.field}: ${d.message}`).join('; ') || 'Invalid request';
      return new AppError('VALIDATION_ERROR', message, details);
    },
  });
}
