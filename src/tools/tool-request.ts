import { SECRET_MASK } from '../lib/crypto.js';
import { fillTemplate } from '../lib/template.js';
import { article, convertValue, isSecretHeader, matchesType, type ToolDefinition } from './tool-definition.js';
import type { ToolField } from './tools.schemas.js';

/** An HTTP request ready to send, built from a tool, the agent's arguments and the call's values. */
export interface ToolRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

export type BuildResult = { ok: true; request: ToolRequest } | { ok: false; error: string };

/** Resolves a `{{name}}` reference; "" when nothing provides it (docs/interface.md#tools). */
export type VariableLookup = (name: string) => string;

export const USER_AGENT = 'Switchboard-Tools/1';

/**
 * The most UTF-8 bytes a header's value may have once its `{{ }}` are filled: what a saved value may
 * be (tools.schemas.ts). A parameter's value gets FILLED_TEXT_BUDGET (docs/decisions/0027-bounded-call-records.md).
 */
export const HEADER_VALUE_BUDGET = 8192;

type Spec = Pick<ToolField, 'type' | 'allowedValues' | 'fields' | 'items'>;

/**
 * Builds the request of one tool run (docs/interface.md#tools), or says why nothing may be sent:
 * AI-filled arguments are checked against type, allowed values and required first; Fixed and
 * Variable values are resolved and converted to their types; path segments are percent-encoded,
 * query arrays repeat their key, body parameters form one JSON object. Arguments the model sends
 * for anything that is not an AI-filled parameter are ignored: they cannot override a Fixed value.
 */
export function buildToolRequest(tool: ToolDefinition, args: unknown, lookup: VariableLookup): BuildResult {
  const problems: string[] = [];
  const given =
    args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  if (args !== undefined && given !== args) problems.push('the arguments must be a JSON object');

  let url = tool.url;
  const query: [string, string][] = [];
  // Without a prototype: "__proto__" is a valid parameter name, and on a plain object assigning it
  // replaces the object's prototype instead of adding a key, so the parameter was silently not sent.
  const body: Record<string, unknown> = Object.create(null);
  for (const parameter of tool.parameters) {
    let value: unknown;
    if (parameter.fillMode === 'ai') {
      const raw = Object.hasOwn(given, parameter.name) ? given[parameter.name] : undefined;
      if (raw === undefined || raw === null) {
        if (parameter.required || parameter.location === 'path') problems.push(`${parameter.name} is required`);
        continue;
      }
      value = aiValue(raw, parameter, parameter.name, problems, lookup);
    } else {
      value = staticValue(parameter, parameter.name, problems, lookup);
    }
    if (value === undefined) continue;
    switch (parameter.location) {
      case 'path':
        if (value === '') problems.push(`the path parameter ${parameter.name} is empty`);
        url = url.split(`{${parameter.name}}`).join(encodeURIComponent(String(value)));
        break;
      case 'query':
        for (const element of Array.isArray(value) ? value : [value]) query.push([parameter.name, String(element)]);
        break;
      case 'body':
        body[parameter.name] = value;
        break;
    }
  }

  const headers: Record<string, string> = {};
  for (const header of tool.headers) {
    const value = fillTemplate(header.value, lookup, HEADER_VALUE_BUDGET);
    // A variable's value must never start a new header line (header injection): refuse instead.
    if (/[\r\n\0]/.test(value)) problems.push(`the header ${header.key} would contain a line break`);
    headers[header.key.toLowerCase()] = value;
  }
  if (problems.length > 0) return { ok: false, error: `The tool was not called: ${problems.join('; ')}.` };

  const target = new URL(url);
  for (const [key, value] of query) target.searchParams.append(key, value);
  const hasBody = tool.parameters.some((p) => p.location === 'body');
  if (hasBody) headers['content-type'] ??= 'application/json';
  headers['user-agent'] ??= USER_AGENT;
  return {
    ok: true,
    request: { method: tool.method, url: target.toString(), headers, body: hasBody ? JSON.stringify(body) : null },
  };
}

/** An AI-filled value checked against its declaration; objects keep only their declared fields. */
function aiValue(value: unknown, spec: Spec, path: string, problems: string[], lookup: VariableLookup): unknown {
  if (!matchesType(value, spec.type)) {
    problems.push(`${path} must be ${article(spec.type)}`);
    return undefined;
  }
  if (spec.allowedValues && !spec.allowedValues.includes(value as string | number | boolean)) {
    problems.push(`${path} must be one of ${spec.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  if (spec.type === 'object' && spec.fields?.length) {
    return assembleObject(spec.fields, value as Record<string, unknown>, path, problems, lookup);
  }
  if (spec.type === 'array' && spec.items) {
    const items = spec.items;
    return (value as unknown[]).map((element, i) => aiValue(element, items, `${path}[${i}]`, problems, lookup));
  }
  return value;
}

/** An object built field by field: AI fields from the model's object, the others resolved here. */
function assembleObject(
  fields: ToolField[],
  given: Record<string, unknown> | undefined,
  path: string,
  problems: string[],
  lookup: VariableLookup,
): Record<string, unknown> {
  // Without a prototype, so that a field named "__proto__" is a key like any other (see `body` above).
  const result: Record<string, unknown> = Object.create(null);
  for (const field of fields) {
    const fieldPath = `${path}.${field.name}`;
    let value: unknown;
    if (field.fillMode === 'ai') {
      const raw = given && Object.hasOwn(given, field.name) ? given[field.name] : undefined;
      if (raw === undefined || raw === null) {
        if (field.required) problems.push(`${fieldPath} is required`);
        continue;
      }
      value = aiValue(raw, field, fieldPath, problems, lookup);
    } else {
      value = staticValue(field, fieldPath, problems, lookup);
    }
    if (value !== undefined) result[field.name] = value;
  }
  return result;
}

/**
 * A Fixed or Variable value: `{{ }}` resolved, then converted to the declared type. An empty
 * Variable is sent as "" for strings and left out for other types (decision 0011: it "may still be
 * empty"), unless it is required, which makes it an error.
 */
function staticValue(field: ToolField, path: string, problems: string[], lookup: VariableLookup): unknown {
  if (field.value === undefined || field.value === null) {
    return field.type === 'object' && field.fields
      ? assembleObject(field.fields, undefined, path, problems, lookup)
      : undefined;
  }
  const raw = typeof field.value === 'string' ? fillTemplate(field.value, lookup) : field.value;
  if (field.fillMode === 'variable' && raw === '' && field.type !== 'string') {
    if (field.required) problems.push(`${path} is required but its variable is empty`);
    return undefined;
  }
  const converted = convertValue(raw, field.type);
  if (!converted.ok) {
    problems.push(`${path}: ${converted.message}`);
    return undefined;
  }
  let value = converted.value;
  if (field.type === 'object' && field.fields?.length) {
    value = { ...(value as object), ...assembleObject(field.fields, undefined, path, problems, lookup) };
  }
  if (field.type === 'array' && field.items) {
    const items = field.items;
    (value as unknown[]).forEach((element, i) => {
      if (!matchesType(element, items.type)) problems.push(`${path}[${i}] must be ${article(items.type)}`);
    });
  }
  return value;
}

/** The request's headers as recorded and shown: secret values masked, an auth scheme word kept. */
export function maskHeaders(
  headers: Record<string, string>,
  configured: { key: string; secret?: boolean }[],
): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    const config = configured.find((h) => h.key.toLowerCase() === key);
    const secret = isSecretHeader({ key, secret: config?.secret });
    const scheme = /^(Bearer|Basic|Token|Digest|Bot)\s+\S/i.exec(value)?.[1];
    masked[key] = secret ? (scheme ? `${scheme} ${SECRET_MASK}` : SECRET_MASK) : value;
  }
  return masked;
}
