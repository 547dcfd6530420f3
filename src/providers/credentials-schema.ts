import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { nullFields } from '../common/null-fields';
import { prepareValidationRules, toErrorDetails } from '../common/validation.pipe';
import { asObject } from './provider-json.util';
import { InvalidCredentialsError } from './provider.errors';
import type { CredentialsSchema } from './provider-plugin';

/** One problem with a credentials object: the field and what is wrong with it, worded like the API's (never the value). */
export interface CredentialsProblem {
  field: string;
  message: string;
}

/**
 * Checks `raw` against a provider's credentials schema. `strict` refuses fields the schema does not
 * declare (what the API does with a connect request); stored credentials carry more fields (session
 * tokens), so adapters parse them non-strict.
 */
export function checkCredentials(schema: CredentialsSchema, raw: unknown, strict: boolean): CredentialsProblem[] {
  const obj = asObject(raw);
  if (!obj) return [{ field: 'credentials', message: 'must be an object' }];
  // A connect request may not send null for a field that takes none; stored credentials (non-strict,
  // read by adapters) are the service's own and may hold nulls.
  const nulls = strict ? nullFields(obj, schema) : [];
  if (nulls.length) return nulls;
  prepareValidationRules();
  const instance = plainToInstance(schema, obj);
  const errors = validateSync(instance, {
    whitelist: strict,
    forbidNonWhitelisted: strict,
    stopAtFirstError: true,
  });
  return toErrorDetails(errors);
}

/**
 * Deeply frozen credentials objects that passed a schema (non-strict). The channels module hands
 * out stored credentials deeply frozen and shared, so a publisher's adapter call checks them once
 * instead of at every publish (class-validator was about a twentieth of the Node CPU per target).
 */
const passed = new WeakMap<object, Set<CredentialsSchema>>();

function isDeeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen);
}

/**
 * For adapters: the credentials' own fields once they pass the schema (non-strict); throws
 * InvalidCredentialsError naming the first problem. `label` prefixes the message ("Mastodon credentials").
 */
export function parseWithSchema(schema: CredentialsSchema, raw: unknown, label: string): Record<string, unknown> {
  const obj = asObject(raw);
  const frozen = obj !== undefined && isDeeplyFrozen(obj);
  if (frozen && passed.get(obj)?.has(schema)) return obj;
  const problems = checkCredentials(schema, raw, false);
  if (problems.length > 0) {
    const [first] = problems;
    throw new InvalidCredentialsError(
      first.field === 'credentials' ? `${label} ${first.message}` : `${label}: ${first.field} ${first.message}`,
    );
  }
  if (frozen) passed.set(obj, (passed.get(obj) ?? new Set()).add(schema));
  return obj as Record<string, unknown>;
}
