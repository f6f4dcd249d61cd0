import { readFileSync } from 'node:fs';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/** The providers' own published OpenAPI files (test/fixtures/providers), the shapes fakes and fixtures must keep. */
const SPECS = {
  vapi: () => JSON.parse(readFileSync(new URL('../fixtures/providers/vapi-openapi.json', import.meta.url), 'utf8')),
  retell: () => parse(readFileSync(new URL('../fixtures/providers/retell-openapi.yaml', import.meta.url), 'utf8')),
};

/**
 * What the providers' files say that JSON Schema reads differently, read as they mean it:
 * - an empty `enum` (refused by JSON Schema) is dropped;
 * - an `enum` written on an array as well as on its items (Vapi's `serverMessages`) applies to the items;
 * - a `pattern` written as a JavaScript literal (`/^…$/`) is the expression between the slashes;
 * - a boolean `exclusiveMinimum`/`exclusiveMaximum` (OpenAPI 3.0) makes its `minimum`/`maximum` exclusive;
 * - `oneOf` whose alternatives overlap (Vapi's transcript messages differ only by a free-text `role`)
 *   is read as `anyOf`;
 * - a `type` its own `enum` contradicts (Vapi's `BackoffPlan.type`: `object`, with string values) is
 *   the type of those values.
 */
function cleaned(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(cleaned);
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Record<string, unknown>;
  const arrayEnum = schema.type === 'array' && 'items' in schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(key === 'enum' && Array.isArray(value) && (value.length === 0 || arrayEnum)))
      // OpenAPI 3.0's `exclusiveMinimum: true` beside `minimum` is JSON Schema's `exclusiveMinimum: <minimum>`.
      .filter(
        ([key, value]) => !(typeof value === 'boolean' && (key === 'exclusiveMinimum' || key === 'exclusiveMaximum')),
      )
      .map(([key, value]) => {
        if (key === 'minimum' && schema.exclusiveMinimum === true) return ['exclusiveMinimum', value];
        if (key === 'maximum' && schema.exclusiveMaximum === true) return ['exclusiveMaximum', value];
        if (key === 'pattern' && typeof value === 'string' && /^\/.*\/$/.test(value)) return [key, value.slice(1, -1)];
        if (key === 'type' && value === 'object' && enumOfStrings(schema.enum)) return [key, 'string'];
        return [key === 'oneOf' ? 'anyOf' : key, cleaned(value)];
      }),
  );
}

const enumOfStrings = (values: unknown): boolean =>
  Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === 'string');

const ajvs = new Map<string, Ajv.default>();

/**
 * A validator for one of a provider's published schemas (`components.schemas.<name>`): required
 * fields, types and enums as the provider publishes them. OpenAPI-only keywords are ignored.
 */
export function publishedSchema(provider: keyof typeof SPECS, name: string): ValidateFunction {
  let ajv = ajvs.get(provider);
  if (!ajv) {
    ajv = addFormats.default(new Ajv.default({ strict: false, allErrors: true, validateFormats: false }));
    ajv.addSchema(cleaned(SPECS[provider]()) as object, provider);
    ajvs.set(provider, ajv);
  }
  const validate = ajv.getSchema(`${provider}#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name} in the ${provider} OpenAPI file`);
  return validate;
}

/** A validator for the JSON body of one of a provider's published operations (`POST /call`, …). */
export function publishedRequestSchema(provider: keyof typeof SPECS, method: string, path: string): ValidateFunction {
  publishedSchema(provider, provider === 'vapi' ? 'CreateCallDTO' : 'AgentRequest'); // loads the spec
  const ajv = ajvs.get(provider) as Ajv.default;
  const segments = ['paths', path, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema'];
  const pointer = segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  const key = `${provider} ${method} ${path}`;
  let validate = requestValidators.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `${provider}#/${pointer}` });
    requestValidators.set(key, validate);
  }
  return validate;
}

const requestValidators = new Map<string, ValidateFunction>();

/** Every value of an enum in a provider's published schema, found by a JSON pointer into `components.schemas`. */
export function publishedEnum(provider: keyof typeof SPECS, pointer: string[]): string[] {
  let node: unknown = SPECS[provider]().components.schemas;
  for (const key of pointer) node = (node as Record<string, unknown>)[key];
  return (node as { enum: string[] }).enum;
}
