import { getMetadataStorage } from 'class-validator';
import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';

type Rule = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];
type Class = new () => object;

/** What the document says of a string with no other shape: the JSON parser refuses NUL in every string. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/**
 * The JSON Schema keywords one class-validator rule enforces, or undefined for a rule that has none
 * (a custom check, stated in its field's description). `each` rules apply to an array's items.
 */
export function describeRule(rule: Pick<Rule, 'name' | 'type' | 'constraints'>): SchemaObject | undefined {
  const [a, b] = (rule.constraints ?? []) as unknown[];
  switch (rule.name ?? rule.type) {
    case 'isNotEmpty':
      return { minLength: 1 };
    case 'maxLength':
      return { maxLength: a as number };
    case 'minLength':
      return { minLength: a as number };
    case 'length':
      return { minLength: a as number, ...(typeof b === 'number' ? { maxLength: b } : {}) };
    case 'min':
      return { minimum: a as number };
    case 'max':
      return { maximum: a as number };
    case 'isIn':
      return { enum: [...(a as unknown[])] };
    case 'isEnum':
      return { enum: Object.values(a as object) };
    case 'matches':
      return { pattern: a instanceof RegExp ? a.source : String(a) };
    case 'arrayMinSize':
    case 'arrayNotEmpty':
      return { minItems: typeof a === 'number' ? a : 1 };
    case 'arrayMaxSize':
      return { maxItems: a as number };
    case 'arrayUnique':
      return { uniqueItems: true };
    case 'isUUID':
      return { format: 'uuid' };
    case 'isUrl':
      return { format: 'uri' };
    case 'isInt':
      return { type: 'integer' };
    case 'isBoolean':
      return { type: 'boolean' };
    case 'isString':
      return { type: 'string' };
    default:
      return undefined;
  }
}

/** Every class with validation rules, by name (the component names @nestjs/swagger gives DTOs). */
function classesByName(): Map<string, Class> {
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Class, Rule[]> };
  const byName = new Map<string, Class>();
  for (const target of storage.validationMetadatas.keys()) {
    if (typeof target === 'function') byName.set(target.name, target);
  }
  return byName;
}

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** The component names a schema refers to, directly or in its properties, items and combinations. */
function refsOf(schema: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => refsOf(s, into));
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') into.add(refName(value));
      else refsOf(value, into);
    }
  }
  return into;
}

/** Adds each keyword the schema lacks; a keyword it already has is kept (the DTO's own declaration). */
function merge(target: SchemaObject, keywords: SchemaObject): void {
  for (const [key, value] of Object.entries(keywords)) {
    const t = target as Record<string, unknown>;
    if (key === 'minLength' && typeof t.minLength === 'number') t.minLength = Math.max(t.minLength, value as number);
    else if (!(key in t)) t[key] = value;
  }
}

/** The component names the JSON request bodies of the document refer to. */
function requestBodyRoots(doc: OpenAPIObject): Set<string> {
  const roots = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const op of [item.post, item.put, item.patch, item.delete]) {
      const body = op?.requestBody;
      if (body && 'content' in body) refsOf(body.content['application/json']?.schema, roots);
    }
  }
  return roots;
}

/** Each request DTO schema reachable from a request body, with its class. */
function requestClasses(doc: OpenAPIObject): Array<{ name: string; schema: SchemaObject; type: Class }> {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, SchemaObject>;
  const roots = requestBodyRoots(doc);
  const classes = classesByName();
  const found: Array<{ name: string; schema: SchemaObject; type: Class }> = [];
  const done = new Set<string>();
  const queue = [...roots];
  while (queue.length) {
    const name = queue.shift() as string;
    if (done.has(name)) continue;
    done.add(name);
    const schema = schemas[name];
    const type = classes.get(name);
    if (!schema || !type) continue; // a JSON Schema of a network's options: described where it is made
    for (const ref of refsOf(schema, new Set())) queue.push(ref);
    found.push({ name, schema, type });
  }
  return found;
}

const rulesOf = (type: Class) => getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);

/**
 * States in the document every rule the service enforces on request bodies, from the validation rules
 * themselves (not written a second time): each request DTO's schema refuses unknown fields
 * (`additionalProperties: false`, as the validation pipe does), and each property gets the keywords of
 * its rules (non-empty, lengths, bounds, sets, patterns, item counts). A string with no other shape
 * refuses NUL. A rule the document cannot state is left to its field's description.
 */
export function describeRequestBodies(doc: OpenAPIObject): void {
  for (const { schema, type } of requestClasses(doc)) describeClass(schema, type);
  // A body without fields (EmptyBodyDto) has no rules to walk, but the pipe refuses any field in it.
  const schemas = (doc.components?.schemas ?? {}) as Record<string, SchemaObject>;
  for (const name of requestBodyRoots(doc)) {
    const schema = schemas[name];
    if (schema?.type === 'object' && Object.keys(schema.properties ?? {}).length === 0) {
      schema.additionalProperties = false;
    }
  }
}

/**
 * Where the document and the validation disagree: a documented property without a rule, or a rule on
 * a property the document does not show (test/foundation/openapi-completeness.e2e-spec.ts keeps this
 * empty for the committed document).
 */
export function undocumentedRules(doc: OpenAPIObject): string[] {
  return requestClasses(doc).flatMap(({ name, schema, type }) => {
    if (schema.oneOf) return []; // stated per variant (POST /channels: one body per network)
    const documented = Object.keys(schema.properties ?? {});
    const ruled = [...new Set(rulesOf(type).map((r) => r.propertyName))];
    return [
      ...documented.filter((p) => !ruled.includes(p)).map((p) => `${name}.${p} is documented but has no rule`),
      ...ruled.filter((p) => !documented.includes(p)).map((p) => `${name}.${p} is validated but not documented`),
    ];
  });
}

function describeClass(schema: SchemaObject, type: Class): void {
  const properties = (schema.properties ?? {}) as Record<string, SchemaObject>;
  schema.additionalProperties = false;
  for (const rule of rulesOf(type)) {
    const property = properties[rule.propertyName];
    if (!property || '$ref' in property || property.allOf || property.oneOf || property.anyOf) continue;
    const keywords = describeRule(rule);
    if (!keywords) continue;
    if (rule.each) {
      if (property.items && !('$ref' in property.items)) merge(property.items, keywords);
    } else if (!(property.type === 'array' && keywords.type)) {
      merge(property, keywords);
    }
  }
  for (const property of Object.values(properties)) {
    for (const s of [property, property.items as SchemaObject | undefined]) {
      if (s && !('$ref' in s) && s.type === 'string' && !s.enum && !s.pattern && !s.format) {
        s.pattern = NO_NUL_PATTERN;
      }
    }
  }
}
