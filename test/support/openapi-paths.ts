import { randomUUID } from 'node:crypto';

/** A concrete path for a document's path template: a provider name where one goes, a UUID for every other parameter. */
export function concretePath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'provider' ? 'sandbox' : randomUUID()));
}
