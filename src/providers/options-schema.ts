import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import type { OptionsSchema } from './provider-plugin';
import type { Problem } from './social-provider.interface';

/**
 * Compiles a plugin's options schema once. Strict ajv: a keyword it does not know, or a schema that is
 * not closed (`additionalProperties: false` on the object), stops the start naming the plugin, so a
 * typo in a schema never turns into options silently accepted.
 */
export function compileOptionsSchema(providerId: string, schema: OptionsSchema): ValidateFunction {
  if (schema.type !== 'object' || schema.additionalProperties !== false) {
    throw new Error(`Provider ${providerId}: optionsSchema must be a closed object (additionalProperties: false)`);
  }
  try {
    return new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false }).compile(schema);
  } catch (err) {
    throw new Error(`Provider ${providerId}: optionsSchema does not compile: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** `/a/0/b` as the API names fields: `a[0].b`. */
function pathOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, seg) => (/^\d+$/.test(seg) ? `${path}[${seg}]` : path ? `${path}.${seg}` : seg), '');
}

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);
const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;

/** One ajv error as the API words a field problem (the same words as the validation pipe's). */
function problemOf(e: ErrorObject): Problem {
  const path = pathOf(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return { field: join(path, String(p.additionalProperty)), message: 'is not a known field' };
    case 'required':
      return { field: join(path, String(p.missingProperty)), message: 'is required' };
    case 'enum':
      return { field: path, message: `must be one of: ${(p.allowedValues as unknown[]).join(', ')}` };
    case 'const':
      return { field: path, message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'type':
      return { field: path, message: `must be ${/^[aeiou]/.test(String(p.type)) ? 'an' : 'a'} ${String(p.type)}` };
    case 'maxLength':
      return { field: path, message: `must be at most ${Number(p.limit)} characters long` };
    case 'minLength':
      return { field: path, message: `must be at least ${Number(p.limit)} characters long` };
    case 'maximum':
      return { field: path, message: `must be at most ${Number(p.limit)}` };
    case 'minimum':
      return { field: path, message: `must be at least ${Number(p.limit)}` };
    case 'maxItems':
      return { field: path, message: `must contain at most ${items(Number(p.limit))}` };
    case 'minItems':
      return { field: path, message: `must contain at least ${items(Number(p.limit))}` };
    case 'uniqueItems':
      return { field: path, message: 'must not contain duplicates' };
    case 'pattern':
      return { field: path, message: `must match ${String(p.pattern)}` };
    default:
      return { field: path, message: e.message ?? 'is not valid' };
  }
}

/**
 * The problems of `options` against a compiled schema, one per field (the first found), with fields
 * named from the options object (`visibility`, `tags[1]`); the caller puts them under
 * `targets[i].options`.
 */
export function optionsProblems(validate: ValidateFunction, options: unknown): Problem[] {
  if (validate(options)) return [];
  const byField = new Map<string, Problem>();
  for (const e of validate.errors ?? []) {
    // An `if` that failed its `then`/`else` also reports itself ("must match then schema") at the
    // object: the branch's own errors name the field, so this one is left out.
    if (e.keyword === 'if') continue;
    const problem = problemOf(e);
    if (!byField.has(problem.field)) byField.set(problem.field, problem);
  }
  return [...byField.values()];
}
