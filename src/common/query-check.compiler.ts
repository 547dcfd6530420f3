import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationArguments } from 'class-validator';
import { defaultMetadataStorage as transformRules } from 'class-transformer/cjs/storage';
import { TransformationType } from 'class-transformer';

/**
 * A query DTO's rules compiled into one function, for the hot read routes (docs/adr/0046).
 *
 * The global ValidationPipe checks a query the general way: class-transformer builds the DTO, then
 * class-validator works through its metadata, builds a ValidationError per property and awaits the
 * result, about a third of what an authenticated list request costs us beyond the same I/O. A query
 * is a flat object of strings checked by a handful of synchronous rules; this compiler reads the same
 * decorators once per class and returns a function that builds the DTO and runs the same rule
 * functions in a straight line.
 *
 * It only ever says yes: the function returns the DTO when every rule passes, and `null` for anything
 * it does not decide itself (a rule failing, a repeated parameter, an unknown field), and the caller
 * then runs the pipe, whose error is the answer as before. A class with a rule or transformation the
 * compiler does not reproduce exactly is not compiled at all (`compileQueryCheck` returns `null`).
 * query-check.compiler.spec.ts checks every query DTO of the API against the pipe on generated queries.
 */
export type QueryCheck<T> = (query: Readonly<Record<string, unknown>>) => T | null;

type Rule = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];
type Validate = (value: unknown, args: ValidationArguments) => unknown;

/**
 * The compiled checks of the classes met so far. A class's check is made again when its rules change:
 * class-validator's lookup (prepared by prepareValidationRules) answers with the same array until a rule
 * is added anywhere.
 */
export class QueryChecks {
  private readonly compiled = new Map<unknown, { rules: readonly Rule[]; check: QueryCheck<object> | null }>();

  of(cls: new () => object): QueryCheck<object> | null {
    const rules = getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false, undefined);
    let entry = this.compiled.get(cls);
    if (entry?.rules !== rules) {
      entry = { rules, check: compileQueryCheck(cls) };
      this.compiled.set(cls, entry);
    }
    return entry.check;
  }
}

/** How class-transformer turns a query string into the property's value (enableImplicitConversion off). */
type Conversion = 'none' | 'number';

interface PropertyCheck {
  name: string;
  /** Conditional rules (@IsOptional, @ValidateIf): all must hold for the rules below to run. */
  conditions: Array<(object: object, value: unknown) => boolean>;
  /** @IsDefined: runs even when a condition skips the others. */
  defined: Array<{ rule: Rule; validate: Validate }>;
  rules: Array<{ rule: Rule; validate: Validate }>;
}

const SUPPORTED = new Set<string>([
  ValidationTypes.CUSTOM_VALIDATION,
  ValidationTypes.CONDITIONAL_VALIDATION,
  ValidationTypes.IS_DEFINED,
  ValidationTypes.WHITELIST,
]);

/** The compiled check of a query DTO class, or null when its rules are not all reproducible here. */
export function compileQueryCheck<T extends object>(cls: new () => T): QueryCheck<T> | null {
  const storage = getMetadataStorage();
  // As class-validator's executor asks (no groups, not `always`, groups not strict).
  const all = storage.getTargetValidationMetadatas(cls, '', false, false, undefined);
  if (all.length === 0) return null; // forbidUnknownValues: the pipe refuses a class without rules
  if (transformRules.getStrategy(cls) !== 'none') return null; // @Expose/@Exclude shape the object
  const byName = storage.groupByPropertyName(all);
  const properties: PropertyCheck[] = [];
  const conversions = new Map<string, Conversion>();
  for (const [name, rules] of Object.entries(byName)) {
    const check: PropertyCheck = { name, conditions: [], defined: [], rules: [] };
    for (const rule of rules) {
      if (!SUPPORTED.has(rule.type) || rule.each || rule.groups?.length || rule.always || rule.validateIf) return null;
      if (rule.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        check.conditions.push(rule.constraints[0] as PropertyCheck['conditions'][number]);
      } else if (rule.type !== ValidationTypes.WHITELIST) {
        const constraints = storage.getTargetValidatorConstraints(rule.constraintCls);
        if (constraints.length !== 1 || constraints[0].async) return null;
        const instance = constraints[0].instance as { validate: Validate };
        const validate: Validate = (value, args) => instance.validate(value, args);
        (rule.type === ValidationTypes.IS_DEFINED ? check.defined : check.rules).push({ rule, validate });
      }
    }
    const conversion = conversionOf(cls, name);
    if (conversion === null) return null;
    conversions.set(name, conversion);
    properties.push(check);
  }
  const targetName = cls.name;

  return (query) => {
    const dto = new cls() as Record<string, unknown>;
    for (const key of Object.keys(query)) {
      const conversion = conversions.get(key);
      const raw = query[key];
      // An unknown field, a repeated parameter (an array): the pipe's answer.
      if (conversion === undefined || typeof raw !== 'string') return null;
      dto[key] = conversion === 'number' ? Number(raw) : raw;
    }
    // Every own property must have rules (whitelist), defaults included.
    for (const key of Object.keys(dto)) if (!conversions.has(key)) return null;
    for (const p of properties) {
      const value = dto[p.name];
      if (!p.conditions.every((condition) => condition(dto, value))) {
        if (!passes(p.defined, dto, value, targetName)) return null;
        continue;
      }
      if (!passes(p.defined, dto, value, targetName) || !passes(p.rules, dto, value, targetName)) return null;
    }
    return dto as T;
  };
}

function passes(
  rules: PropertyCheck['rules'],
  object: Record<string, unknown>,
  value: unknown,
  targetName: string,
): boolean {
  for (const { rule, validate } of rules) {
    const verdict = validate(value, {
      targetName,
      property: rule.propertyName,
      object,
      value,
      constraints: rule.constraints,
    });
    // A promise is a verdict for the pipe to wait for.
    if (verdict !== true) return false;
  }
  return true;
}

/** What class-transformer does to a string in this property, or null when it is anything else. */
function conversionOf(cls: new () => object, name: string): Conversion | null {
  if (transformRules.findTransformMetadatas(cls, name, TransformationType.PLAIN_TO_CLASS).length) return null;
  if (transformRules.findExposeMetadata(cls, name) || transformRules.findExcludeMetadata(cls, name)) return null;
  const type = transformRules.findTypeMetadata(cls, name);
  if (!type) return 'none';
  if (type.options?.discriminator) return null;
  const target = type.typeFunction();
  if (target === Number) return 'number';
  if (target === String) return 'none';
  return null;
}
