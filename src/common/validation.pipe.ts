import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, MetadataStorage } from 'class-validator';
import { AppError, ErrorDetail } from './errors';
import { nullFields } from './null-fields';
import { QueryChecks } from './query-check.compiler';

type RuleLookup = MetadataStorage['getTargetValidationMetadatas'];
type Rules = ReturnType<RuleLookup>;
const preparedStorages = new WeakSet<MetadataStorage>();

/** Rules that check a value's JSON type: they run before any other rule of the property. */
const TYPE_RULES: ReadonlySet<string> = new Set(['isString', 'isArray', 'isInt', 'isNumber', 'isBoolean', 'isObject']);

/**
 * The rules of a class in the order a person reads them: per property, the type check first, then the
 * others as written, top to bottom. class-validator keeps them in the order decorators ran, which is
 * bottom to top, and with `stopAtFirstError` reports the first that fails: `@IsString() @MaxLength(n)`
 * then answered a missing or numeric `content` with its length. Properties keep their order.
 */
export function inReadingOrder(rules: Rules): Rules {
  const byProperty = new Map<string, Rules>();
  for (const rule of rules) {
    const list = byProperty.get(rule.propertyName) ?? [];
    list.push(rule);
    byProperty.set(rule.propertyName, list);
  }
  const rank = (rule: Rules[number]) => (!rule.each && rule.name && TYPE_RULES.has(rule.name) ? 0 : 1);
  return [...byProperty.values()].flatMap((list) => {
    // One class's rules of a property ran bottom to top: reversed per class (a subclass's come first).
    const written: Rules = [];
    let block: Rules = [];
    list.forEach((rule, i) => {
      block.push(rule);
      if (i === list.length - 1 || list[i + 1].target !== rule.target) {
        written.push(...block.reverse());
        block = [];
      }
    });
    return written
      .map((rule, i) => ({ rule, i }))
      .sort((a, b) => rank(a.rule) - rank(b.rule) || a.i - b.i)
      .map((x) => x.rule);
  });
}

/**
 * Prepares class-validator's rule lookup, once per storage, for every validation of the process (the
 * global pipe, credentials schemas, multipart fields):
 *
 * - Rules come in reading order (inReadingOrder), so the first failing rule of a field is the one a
 *   person expects: its type before its length.
 * - The answer is kept. class-validator works out again, on every validation, which of its stored rules
 *   apply to the object's class: an `instanceof` test against every class that has rules, then filters of
 *   their rules. That was the largest single cost of validating a list query (bench:auth: about 3 KB of
 *   garbage and a few microseconds per request). Rules are added when classes are declared, so the
 *   answer is kept per class and options until a rule is added (which forgets every answer). The kept
 *   arrays are frozen: callers only read them.
 */
export function prepareValidationRules(storage: MetadataStorage = getMetadataStorage()): void {
  if (preparedStorages.has(storage)) return;
  preparedStorages.add(storage);
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
      rules = Object.freeze(inReadingOrder(lookup(target, schema, always, strictGroups, groups))) as Rules;
      byOptions.set(key, rules);
    }
    return rules;
  };
}

const items = (n: string) => `${n} item${n === '1' ? '' : 's'}`;

/** class-validator's default wordings (after the property name) and how we say them. */
const REWORDED: Array<[RegExp, (...groups: string[]) => string]> = [
  [/^must be a boolean value$/, () => 'must be a boolean'],
  [/^must be an integer number$/, () => 'must be an integer'],
  [/^must be a number conforming to the specified constraints$/, () => 'must be a number'],
  [/^must contain at least (\d+) elements$/, (n) => `must contain at least ${items(n)}`],
  [/^must contain no more than (\d+) elements$/, (n) => `must contain at most ${items(n)}`],
  [/^must be one of the following values: (.*)$/, (values) => `must be one of: ${values}`],
  [/^must be shorter than or equal to (\d+) characters$/, (n) => `must be at most ${n} characters long`],
  [/^must be longer than or equal to (\d+) characters$/, (n) => `must be at least ${n} characters long`],
  [
    /^must be longer than or equal to (\d+) and shorter than or equal to (\d+) characters$/,
    (min, max) => `must be ${min} to ${max} characters long`,
  ],
  [/^must not be less than (\S+)$/, (n) => `must be at least ${n}`],
  [/^must not be greater than (\S+)$/, (n) => `must be at most ${n}`],
  [/^should not be empty$/, () => 'must not be empty'],
];

/** What one failed rule says about its field, without the field's name, worded for a person. */
function ruleMessage(kind: string, message: string, property: string): string {
  if (kind === 'whitelistValidation') return 'is not a known field';
  if (kind === 'arrayUnique') return 'must not contain duplicates';
  if (kind === 'arrayNotEmpty') return 'must contain at least 1 item';
  if (kind === 'nestedValidation') return 'must be an object';
  let m = message;
  if (m.startsWith(`${property} `)) m = m.slice(property.length + 1);
  else if (m.startsWith(`each value in ${property} `)) m = `each value ${m.slice(`each value in ${property} `.length)}`;
  const each = m.startsWith('each value ') ? 'each value ' : '';
  const rest = m.slice(each.length);
  for (const [pattern, say] of REWORDED) {
    const match = pattern.exec(rest);
    if (match) return `${each}${say(...match.slice(1))}`;
  }
  return m;
}

/**
 * class-validator errors as `{field, message}` details, nested fields as paths under `parent`:
 * dotted for properties, bracketed for array items (`thread[1].content`). One detail per field: a field
 * left out "is required", otherwise the first rule it failed (rules run in reading order, see
 * prepareValidationRules) in our words; the fields inside a field that failed are not looked at.
 */
export function toErrorDetails(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((e) => {
    const field = /^\d+$/.test(e.property)
      ? `${parent}[${e.property}]`
      : parent
        ? `${parent}.${e.property}`
        : e.property;
    const [first] = Object.entries(e.constraints ?? {});
    if (!first) return toErrorDetails(e.children ?? [], field);
    const [kind, message] = first;
    // An own `value` that is undefined: the field was left out (Nest drops the value of errors with children).
    const missing = kind !== 'whitelistValidation' && Object.hasOwn(e, 'value') && e.value === undefined;
    return [{ field, message: missing ? 'is required' : ruleMessage(kind, message, e.property) }];
  });
}

/**
 * The global validation pipe: strips nothing silently (unknown fields are 400) and reports every field.
 * A query goes first through its DTO's compiled check (query-check.compiler.ts, docs/adr/0046), which
 * builds the same DTO without the general machinery when every rule passes; anything else, and every
 * body and parameter, takes ValidationPipe's path, whose errors are the answer.
 */
export class RequestValidationPipe extends ValidationPipe {
  private readonly queryChecks = new QueryChecks();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { type, metatype } = metadata;
    if (type === 'query' && typeof metatype === 'function' && value !== null && typeof value === 'object') {
      const dto = this.queryChecks.of(metatype as new () => object)?.(value as Record<string, unknown>);
      if (dto) return dto;
    }
    if (type === 'body' && isDto(metatype) && value !== undefined && value !== '') {
      // A body is the JSON object its DTO describes: a bare string, number, array or null is refused
      // like an object of the wrong shape, not validated as if it were an empty one. No body at all (or an
      // empty one, which Fastify reads as '') is the operation's to allow.
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw AppError.invalid([{ field: 'body', message: 'must be a JSON object' }]);
      }
      const nulls = nullFields(value, metatype);
      if (nulls.length) throw AppError.invalid(nulls);
    }
    return super.transform(value, metadata);
  }
}

/** A DTO class, not one of the built-in types Nest reports for an untyped or primitive parameter. */
function isDto(metatype: ArgumentMetadata['metatype']): metatype is new () => object {
  return typeof metatype === 'function' && ![Object, String, Number, Boolean, Array].includes(metatype as never);
}

export function createValidationPipe(): ValidationPipe {
  prepareValidationRules();
  return new RequestValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => AppError.invalid(toErrorDetails(errors)),
  });
}
