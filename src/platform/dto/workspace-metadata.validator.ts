import { registerDecorator, ValidationOptions } from 'class-validator';

/** Bounds of a workspace's `metadata` (docs/guide.md, "Building a platform on the service"). */
export const WORKSPACE_METADATA_MAX_KEYS = 20;
export const WORKSPACE_METADATA_MAX_KEY_LENGTH = 40;
export const WORKSPACE_METADATA_MAX_VALUE_LENGTH = 500;

/** The OpenAPI schema of `metadata`, stating the bounds the validator enforces. */
export const WORKSPACE_METADATA_SCHEMA = {
  type: 'object',
  maxProperties: WORKSPACE_METADATA_MAX_KEYS,
  additionalProperties: { type: 'string', maxLength: WORKSPACE_METADATA_MAX_VALUE_LENGTH },
  example: { plan: 'pro', region: 'eu' },
} as const;

/** A map of at most 20 keys (1 to 40 characters) to strings of at most 500 characters. */
export function isWorkspaceMetadata(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length <= WORKSPACE_METADATA_MAX_KEYS &&
    Object.entries(value).every(
      ([k, v]) =>
        k.length > 0 &&
        k.length <= WORKSPACE_METADATA_MAX_KEY_LENGTH &&
        typeof v === 'string' &&
        v.length <= WORKSPACE_METADATA_MAX_VALUE_LENGTH,
    )
  );
}

export function IsWorkspaceMetadata(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isWorkspaceMetadata',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        // A value that is not an object at all is told its type, as every other field is.
        message: ({ value }) =>
          typeof value !== 'object' || value === null || Array.isArray(value)
            ? 'must be an object'
            : `must map at most ${WORKSPACE_METADATA_MAX_KEYS} keys (1 to ${WORKSPACE_METADATA_MAX_KEY_LENGTH} characters) to strings (up to ${WORKSPACE_METADATA_MAX_VALUE_LENGTH} characters)`,
        ...options,
      },
      validator: { validate: isWorkspaceMetadata },
    });
}
