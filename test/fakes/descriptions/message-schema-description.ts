import { readFileSync } from 'node:fs';
import Ajv, { type ValidateFunction } from 'ajv';
import type { DescribedRequest, Description, DescriptionCheck } from './description';
import { formatErrors } from './openapi-description';

type Json = Record<string, unknown>;

/** `EVENT` -> `EventMessage`: the definition that describes a message of that type. */
const definitionOf = (type: string) => `${type.charAt(0).toUpperCase()}${type.slice(1).toLowerCase()}Message`;

/**
 * A protocol of JSON messages over a WebSocket (Nostr's NIP-01), described by one JSON Schema
 * (draft-07) recorded under test/fixtures/networks/<id>/. Each message is a request in the terms of
 * `Description`: method `WS`, the message text as the body. A message that is an array whose first
 * element names its type (`["EVENT", ...]`) is checked against the schema's definition
 * `<Type>Message` (`EventMessage`) when there is one, so a refusal names the fields of that message;
 * any other against the whole schema.
 */
export class MessageSchemaDescription implements Description {
  readonly source: string;
  private readonly ajv: Ajv;
  private readonly whole: ValidateFunction;
  private readonly byType = new Map<string, ValidateFunction>();

  constructor(
    private readonly schema: Json,
    source: string,
  ) {
    this.source = source;
    this.ajv = new Ajv({ strict: false, allErrors: true, logger: false });
    this.ajv.addSchema(schema, 'doc');
    this.whole = this.ajv.compile({ $ref: 'doc#' });
  }

  /** Loads a recorded schema (test/fixtures/networks/<id>/*.schema.json). */
  static load(file: string, source: string): MessageSchemaDescription {
    return new MessageSchemaDescription(JSON.parse(readFileSync(file, 'utf8')) as Json, source);
  }

  check(req: DescribedRequest): DescriptionCheck {
    let message: unknown;
    try {
      message = JSON.parse(req.body.toString('utf8'));
    } catch (err) {
      return { problems: [`the message is not JSON: ${err instanceof Error ? err.message : String(err)}`] };
    }
    const type = Array.isArray(message) && typeof message[0] === 'string' ? message[0] : undefined;
    const validate = (type && this.validatorFor(type)) || this.whole;
    const problems = validate(message) ? [] : formatErrors(validate.errors, type ?? 'message');
    return { operation: type, problems };
  }

  private validatorFor(type: string): ValidateFunction | undefined {
    const name = definitionOf(type);
    if (!(this.schema.definitions as Json | undefined)?.[name]) return undefined;
    let fn = this.byType.get(name);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `doc#/definitions/${name}` });
      this.byType.set(name, fn);
    }
    return fn;
  }
}
