import { getMetadataStorage } from 'class-validator';

/** Where @nestjs/swagger keeps a property's schema (its DECORATORS.API_MODEL_PROPERTIES, not exported). */
const SWAGGER_PROPERTY = 'swagger/apiModelProperties';

export interface CredentialField {
  name: string;
  label: string;
  required: boolean;
  /**
   * How the form asks for it: `number` for integers, `boolean` a default/yes/no choice, `list` a
   * text of values separated by spaces, commas or new lines (Nostr's relays).
   */
  type: 'url' | 'password' | 'text' | 'number' | 'boolean' | 'list';
  placeholder: string | null;
  hint: string | null;
}

/** `accessToken` -> `Access token`. */
function labelOf(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1).replace(/\burl\b/g, 'URL');
}

/**
 * The fields of a provider's connect form, read from its credentials schema (the class-validator
 * and Swagger metadata of the DTO that validates `POST /channels`), so a new provider gets a form
 * without console code.
 */
export function credentialFields(dto: new () => object): CredentialField[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const names = [...new Set(metas.map((m) => m.propertyName))];
  return names.map((name) => {
    const own = metas.filter((m) => m.propertyName === name);
    const optional = own.some((m) => m.type === 'conditionalValidation');
    const has = (validator: string) => own.some((m) => m.name === validator);
    const swagger = (Reflect.getMetadata(SWAGGER_PROPERTY, dto.prototype as object, name) ?? {}) as {
      example?: string | number;
      description?: string;
      format?: string;
    };
    return {
      name,
      label: labelOf(name),
      required: !optional,
      type: has('isArray')
        ? 'list'
        : has('isUrl')
          ? 'url'
          : has('isInt') || has('isNumber')
            ? 'number'
            : has('isBoolean')
              ? 'boolean'
              : /token|password|secret/i.test(name) || swagger.format === 'password'
                ? 'password'
                : 'text',
      placeholder: swagger.example === undefined ? null : String(swagger.example),
      hint: swagger.description ?? null,
    };
  });
}

/**
 * A form's text as the value the credentials schema expects: integers and booleans are converted
 * (`'true'`/`'false'`); a value that does not convert is passed on as text, so the schema's own
 * message explains what is wrong. Empty means not given.
 */
export function credentialValue(field: CredentialField, text: string): unknown {
  if (text === '') return undefined;
  if (field.type === 'number' && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (field.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  if (field.type === 'list') return text.split(/[\s,]+/).filter((v) => v !== '');
  return text;
}
