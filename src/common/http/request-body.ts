import { AppError } from '../errors';

/**
 * Deepest nesting a request body may have. Our bodies are two or three levels deep; the bound keeps
 * recursive work further down (validation, transformation) far from the call-stack limit.
 */
export const MAX_BODY_DEPTH = 32;

const NUL = '\u0000';

function refuse(message: string, field?: string): AppError {
  return AppError.validation(message, field ? [{ field, message }] : undefined);
}

function fieldOf(path: string[]): string | undefined {
  return path.length ? path.join('.') : undefined;
}

/**
 * Checks a parsed request body (or query) without recursion: at most MAX_BODY_DEPTH levels, no NUL
 * character in any string or key (Postgres text cannot hold one), and no key that poisons
 * prototypes (`__proto__`, or `constructor` holding `prototype`). Throws a VALIDATION_ERROR naming
 * the field.
 */
export function checkRequestValue(root: unknown): void {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value: root, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) throw refuse('Strings must not contain NUL (\\u0000) characters', fieldOf(path));
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_BODY_DEPTH) {
      throw refuse(`Request body is nested too deeply (at most ${MAX_BODY_DEPTH} levels)`);
    }
    for (const [k, v] of Object.entries(value)) {
      const at = [...path, k];
      if (k.includes(NUL)) throw refuse('Keys must not contain NUL (\\u0000) characters', fieldOf(path));
      if (k === '__proto__' || (k === 'constructor' && v !== null && typeof v === 'object' && 'prototype' in v)) {
        throw refuse(`Forbidden property name '${k}'`, fieldOf(at));
      }
      stack.push({ value: v, path: at });
    }
  }
}

/**
 * The JSON body parser of the HTTP layer. V8's JSON.parse does not recurse, so any nesting parses;
 * `checkRequestValue` then refuses what the rest of the stack should never see.
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw refuse('Request body must not be empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse('Malformed JSON in request body');
  }
  checkRequestValue(value);
  return value;
}
