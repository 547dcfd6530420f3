import { ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, MetadataStorage } from 'class-validator';
import { AppError, ErrorDetail } from './errors';

type RuleLookup = MetadataStorage['getTargetValidationMetadatas'];
const memoizedStorages = new WeakSet<MetadataStorage>();

/**
 * class-validator works out again, on every validation, which of its stored rules apply to the
 * object's class: an `instanceof` test against every class that has rules, then filters of their
 * rules. That was the largest single cost of validating a list query (bench:auth: about 3 KB of
 * garbage and a few microseconds per request). Rules are added when classes are declared, so the
 * answer is kept per class and options until a rule is added (which forgets every answer). The kept
 * arrays are frozen: callers only read them.
 */
export function memoizeValidationRules(storage: MetadataStorage = getMetadataStorage()): void {
  if (memoizedStorages.has(storage)) return;
  memoizedStorages.add(storage);
  type Rules = ReturnType<RuleLookup>;
  const lookup: RuleLookup = storage.getTargetValidationMetadatas.bind(storage);
  let answers = new Map<Parameters<RuleLookup>[0], Map<string, Rules>>();
  const forgetting =
    <A extends unknown[]>(add: (...args: A) => void) =>
    (...args: A): void => {
      answers = new Map<Parameters<RuleLookup>[0], Map<string, Rules>>();
      add(...args);
    };
  storage.addValidationMetadata = forgetting(storage.addValidationMetadata.bind(storage));
  storage.addConstraintMetadata = forgetting(storage.addConstraintMetadata.bind(storage));
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    let byOptions = answers.get(target);
    if (!byOptions) {
      byOptions = new Map<string, Rules>();
      answers.set(target, byOptions);
    }
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${(groups ?? []).join('\u0001')}`;
    let rules = byOptions.get(key);
    if (!rules) {
      rules = Object.freeze(lookup(target, schema, always, strictGroups, groups)) as Rules;
      byOptions.set(key, rules);
    }
    return rules;
  };
}

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
  memoizeValidationRules();
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
