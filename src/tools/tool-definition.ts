import type { FieldProblem } from '../errors.js';
import { outboundUrlProblems } from '../lib/outbound-url.js';
import { placeholdersOf } from '../lib/template.js';
import {
  MAX_NESTING,
  type ParameterType,
  type ToolField,
  type ToolHeader,
  type ToolParameter,
  type ToolVariable,
} from './tools.schemas.js';

/** The parts of a tool its rules look at (a whole definition, after defaults). */
export interface ToolDefinition {
  method: string;
  url: string;
  headers: ToolHeader[];
  parameters: ToolParameter[];
  variables: ToolVariable[];
}

const SCALAR_TYPES = new Set<ParameterType>(['string', 'number', 'integer', 'boolean']);

/** Headers the HTTP client owns: a tool setting them would break framing or reach another host. */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);

const SECRET_HEADER_NAME = /authorization|cookie|key|token|secret|password|passwd|auth|signature|credential/i;

/** Whether a header's value is a secret: as the tool says, else guessed from its name. */
export function isSecretHeader(header: { key: string; secret?: boolean }): boolean {
  return header.secret ?? SECRET_HEADER_NAME.test(header.key);
}

export type Converted = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * A Fixed or Variable value as the declared type (docs/interface.md#tools): `"42"` → 42 for integer, `"true"`
 * → true, JSON text for object and array. Values given as JSON of the right type pass as they are.
 */
export function convertValue(raw: unknown, type: ParameterType): Converted {
  if (typeof raw !== 'string') {
    return matchesType(raw, type)
      ? { ok: true, value: raw }
      : { ok: false, message: `${JSON.stringify(raw)} is not ${article(type)}` };
  }
  const text = raw.trim();
  const fail = { ok: false as const, message: `"${excerpt(raw)}" cannot be converted to ${article(type)}` };
  switch (type) {
    case 'string':
      return { ok: true, value: raw };
    case 'integer':
      return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? { ok: true, value: Number(text) } : fail;
    case 'number':
      return /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) && Number.isFinite(Number(text))
        ? { ok: true, value: Number(text) }
        : fail;
    case 'boolean':
      return /^(true|false)$/i.test(text) ? { ok: true, value: text.toLowerCase() === 'true' } : fail;
    case 'object':
    case 'array': {
      try {
        const value: unknown = JSON.parse(text);
        return matchesType(value, type) ? { ok: true, value } : fail;
      } catch {
        return fail;
      }
    }
  }
}

/** Whether a JSON value is of a parameter type. */
export function matchesType(value: unknown, type: ParameterType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
  }
}

export function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function excerpt(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The `{name}` segments of a URL's path (before any query or fragment). */
export function pathSegmentsOf(url: string): string[] {
  const afterScheme = url.indexOf('://');
  const pathStart = url.indexOf('/', afterScheme < 0 ? 0 : afterScheme + 3);
  if (pathStart < 0) return [];
  const path = url.slice(pathStart).split(/[?#]/, 1)[0] ?? '';
  return [...path.matchAll(/\{([A-Za-z0-9_-]+)\}/g)].map((m) => m[1] as string);
}

/**
 * Every rule a tool definition must satisfy beyond its JSON Schema, each broken rule as a
 * problem at its JSON path (docs/interface.md#tools). `allowPrivateNetworks` decides whether a URL naming a
 * private address literally is refused here already (resolved names are checked when connecting).
 * `standIns` names the fields whose values stand in for ones the schema refused (the stored value or
 * the default, see `besideSchema` in src/errors.ts): the rules that compare another field with one of
 * them are not applied, since they would judge the other field against a value nobody sent.
 */
export async function checkToolDefinition(
  tool: ToolDefinition,
  options: { allowPrivateNetworks: boolean; standIns?: ReadonlySet<string> },
): Promise<FieldProblem[]> {
  const standIn = (field: keyof ToolDefinition) => options.standIns?.has(field) ?? false;
  const problems: FieldProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });
  const declared = new Set<string>();
  tool.variables.forEach((variable, i) => {
    if (declared.has(variable.name))
      problem(`$.variables[${i}].name`, `the variable "${variable.name}" is declared twice`);
    declared.add(variable.name);
  });
  const checkReferences = (path: string, text: string, mustReference: boolean) => {
    const names = placeholdersOf(text);
    for (const name of names) {
      if (!declared.has(name) && !standIn('variables'))
        problem(path, `{{${name}}} names no declared variable; declare it under "variables"`);
    }
    if (mustReference && names.length === 0) {
      problem(path, 'a Variable value must reference a declared variable, e.g. "{{customer_id}}"');
    }
  };

  for (const message of await outboundUrlProblems(tool.url, options)) problem('$.url', message);
  if (tool.url.includes('{{')) problem('$.url', 'use a path or query parameter for values, not {{ }} in the URL');

  const seenHeaders = new Set<string>();
  tool.headers.forEach((header, i) => {
    const key = header.key.toLowerCase();
    if (FORBIDDEN_HEADERS.has(key) || key.startsWith('proxy-')) {
      problem(`$.headers[${i}].key`, `"${header.key}" is set by the HTTP client and cannot be configured`);
    }
    if (seenHeaders.has(key)) problem(`$.headers[${i}].key`, `the header "${header.key}" is configured twice`);
    seenHeaders.add(key);
    if (/[\r\n\0]/.test(header.value)) problem(`$.headers[${i}].value`, 'must not contain line breaks or NUL');
    checkReferences(`$.headers[${i}].value`, header.value, header.mode === 'variable');
  });

  const segments = pathSegmentsOf(tool.url);
  const parameterNames = new Set<string>();
  tool.parameters.forEach((parameter, i) => {
    const path = `$.parameters[${i}]`;
    if (parameterNames.has(parameter.name))
      problem(`${path}.name`, `the parameter "${parameter.name}" is defined twice`);
    parameterNames.add(parameter.name);
    if (parameter.location === 'body' && tool.method === 'GET' && !standIn('method')) {
      problem(`${path}.location`, 'a GET tool cannot have body parameters; use query or path');
    }
    if (parameter.location === 'path') {
      if (!segments.includes(parameter.name) && !standIn('url')) {
        problem(`${path}.name`, `the URL has no {${parameter.name}} segment for this path parameter`);
      }
      if (!SCALAR_TYPES.has(parameter.type))
        problem(`${path}.type`, 'a path parameter must be a string, number, integer or boolean');
    }
    if (parameter.location === 'query') {
      if (parameter.type === 'object' || parameter.items?.type === 'object') {
        problem(`${path}.type`, 'objects cannot be sent in a query string; use a body parameter');
      }
    }
    checkField(parameter, path, problem, checkReferences, true, 1);
  });
  for (const segment of new Set(segments)) {
    if (standIn('parameters')) break;
    if (!tool.parameters.some((p) => p.location === 'path' && p.name === segment)) {
      problem('$.url', `the segment {${segment}} has no path parameter named "${segment}"`);
    }
  }
  return problems;
}

function checkAllowedValues(
  allowed: unknown[] | undefined,
  type: ParameterType,
  path: string,
  problem: (path: string, message: string) => void,
): void {
  if (!allowed) return;
  if (!SCALAR_TYPES.has(type)) {
    problem(`${path}.allowedValues`, 'only string, number, integer and boolean values can be restricted');
    return;
  }
  allowed.forEach((value, j) => {
    if (!matchesType(value, type)) problem(`${path}.allowedValues[${j}]`, `must be ${article(type)}`);
  });
}

function checkField(
  field: ToolField,
  path: string,
  problem: (path: string, message: string) => void,
  checkReferences: (path: string, text: string, mustReference: boolean) => void,
  parentIsAi: boolean,
  depth: number,
): void {
  if (depth > MAX_NESTING && (field.fields?.length || field.items?.fields?.length)) {
    problem(path, `objects nest at most ${MAX_NESTING} levels deep`);
    return;
  }
  if (field.fillMode === 'ai' && !parentIsAi) {
    problem(`${path}.fillMode`, 'an AI-filled field must be inside an AI-filled object or array');
  }
  checkAllowedValues(field.allowedValues, field.type, path, problem);
  if (field.fields && field.type !== 'object') problem(`${path}.fields`, 'only object parameters have fields');
  if (field.items && field.type !== 'array') problem(`${path}.items`, 'only array parameters have items');
  if (field.type === 'array' && !field.items) problem(`${path}.items`, 'is required for an array: the element type');
  if (field.items) {
    checkAllowedValues(field.items.allowedValues, field.items.type, `${path}.items`, problem);
    if (field.items.fields && field.items.type !== 'object') {
      problem(`${path}.items.fields`, 'only arrays of objects have item fields');
    }
  }

  if (field.fillMode === 'ai') {
    if (field.value !== undefined)
      problem(`${path}.value`, 'an AI-filled value is chosen by the agent; remove "value"');
  } else if (field.value === undefined || field.value === null) {
    if (!(field.type === 'object' && field.fields?.length)) {
      problem(`${path}.value`, `is required for a ${field.fillMode === 'fixed' ? 'Fixed' : 'Variable'} value`);
    }
  } else if (typeof field.value === 'string') {
    checkReferences(`${path}.value`, field.value, field.fillMode === 'variable');
    if (field.fillMode === 'fixed' && placeholdersOf(field.value).length === 0) {
      const converted = convertValue(field.value, field.type);
      if (!converted.ok) problem(`${path}.value`, converted.message);
    }
  } else if (field.fillMode === 'variable') {
    problem(`${path}.value`, 'a Variable value is text that references a variable, e.g. "{{customer_id}}"');
  } else if (!matchesType(field.value, field.type)) {
    problem(`${path}.value`, `must be ${article(field.type)}`);
  }

  const childAi = field.fillMode === 'ai';
  const seen = new Set<string>();
  field.fields?.forEach((child, k) => {
    if (seen.has(child.name)) problem(`${path}.fields[${k}].name`, `the field "${child.name}" is defined twice`);
    seen.add(child.name);
    checkField(child, `${path}.fields[${k}]`, problem, checkReferences, childAi, depth + 1);
  });
  field.items?.fields?.forEach((child, k) => {
    checkField(child, `${path}.items.fields[${k}]`, problem, checkReferences, childAi, depth + 1);
  });
}

/** A JSON Schema, as providers and models read it. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema the model sees (docs/interface.md#tools): the AI-filled parameters only, with their types,
 * descriptions, `enum` from allowed values, `required`, and nested properties and items. Variable
 * and Fixed values never appear in it.
 */
export function compileAiSchema(parameters: ToolParameter[]): JsonSchema {
  return objectSchema(parameters, (p) => p.required === true || (p as ToolParameter).location === 'path');
}

function objectSchema(fields: ToolField[], isRequired: (field: ToolField) => boolean): JsonSchema {
  const ai = fields.filter((field) => field.fillMode === 'ai');
  // Without a prototype: an AI parameter named "__proto__" would otherwise vanish from the schema.
  const properties: Record<string, JsonSchema> = Object.create(null);
  for (const field of ai) properties[field.name] = fieldSchema(field);
  const required = ai.filter(isRequired).map((field) => field.name);
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function fieldSchema(field: ToolField): JsonSchema {
  const schema: JsonSchema = { type: field.type };
  if (field.description) schema.description = field.description;
  if (field.allowedValues) schema.enum = field.allowedValues;
  if (field.type === 'object' && field.fields?.length) {
    Object.assign(
      schema,
      objectSchema(field.fields, (f) => f.required === true),
    );
  }
  if (field.type === 'array' && field.items) {
    const items: JsonSchema = { type: field.items.type };
    if (field.items.allowedValues) items.enum = field.items.allowedValues;
    if (field.items.type === 'object' && field.items.fields?.length) {
      Object.assign(
        items,
        objectSchema(field.items.fields, (f) => f.required === true),
      );
    }
    schema.items = items;
  }
  return schema;
}
