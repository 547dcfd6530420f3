import { getMetadataStorage } from 'class-validator';
import { defaultMetadataStorage as transformRules } from 'class-transformer/cjs/storage';
import type { ErrorDetail } from './errors';

/** Where @nestjs/swagger keeps a property's `@ApiProperty()` options (its DECORATORS.API_MODEL_PROPERTIES). */
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';

type Type = abstract new (...args: never[]) => unknown;

/**
 * Whether a request property takes `null`: only when its documentation says so (`@ApiProperty({
 * nullable: true })`, as `altText` does to clear a text). The OpenAPI document and this check read the
 * same declaration. Every other property, optional or not, refuses `null`: class-validator's
 * `@IsOptional()` lets `null` through as if the field were absent, which let `{"approvalRequired": null}`
 * reach a not-null column and `{"enabled": null}` switch a paused webhook back on.
 */
function isNullable(type: Type, property: string): boolean {
  for (
    let t: unknown = type;
    typeof t === 'function' && t !== Object && t !== Function.prototype;
    t = Object.getPrototypeOf(t)
  ) {
    const prototype = (t as { prototype?: unknown }).prototype;
    if (typeof prototype !== 'object' || prototype === null) break;
    const options = Reflect.getMetadata(API_MODEL_PROPERTIES, prototype, property) as
      { nullable?: boolean } | undefined;
    if (options) return options.nullable === true;
  }
  return false;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The properties a class declares rules for (its own and its parents'), in declaration order. */
function ruledProperties(type: Type): string[] {
  const rules = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
  return [...new Set(rules.map((r) => r.propertyName))];
}

/** The class of a nested DTO property (`@Type(() => X)`), when it is one with rules of its own. */
function nestedType(type: Type, property: string): Type | undefined {
  const meta = transformRules.findTypeMetadata(type, property);
  if (!meta || meta.options?.discriminator) return undefined;
  const nested = meta.typeFunction() as unknown;
  return typeof nested === 'function' && nested !== Object && nested !== String && nested !== Number
    ? (nested as Type)
    : undefined;
}

/**
 * The fields of a request body, query or nested object that are `null` where its class does not take
 * `null`, as details (`field: must not be null`), nested fields by path (`thread[1].content`).
 */
export function nullFields(value: unknown, type: Type, path = ''): ErrorDetail[] {
  if (!isObject(value)) return [];
  const details: ErrorDetail[] = [];
  for (const property of ruledProperties(type)) {
    if (!Object.hasOwn(value, property)) continue;
    const field = path ? `${path}.${property}` : property;
    const v = value[property];
    if (v === null) {
      if (!isNullable(type, property)) details.push({ field, message: 'must not be null' });
      continue;
    }
    const nested = nestedType(type, property);
    if (!nested) continue;
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        if (item === null) details.push({ field: `${field}[${i}]`, message: 'must not be null' });
        else details.push(...nullFields(item, nested, `${field}[${i}]`));
      });
    } else {
      details.push(...nullFields(v, nested, field));
    }
  }
  return details;
}
