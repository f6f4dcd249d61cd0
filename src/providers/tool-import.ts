/**
 * Tools defined at a provider, as our tool definitions (issue 5 "Import"): what converts faithfully
 * is converted, what does not is said per tool, never dropped in silence.
 */
import {
  ITEM_TYPES,
  MAX_NESTING,
  PARAMETER_TYPES,
  type ParameterType,
  TOOL_NAME_PATTERN,
  type ToolField,
} from '../tools/tools.schemas.js';
import { isObject, type Json, text } from './provider-outcome.js';

/** A tool as a provider describes it, reduced to what an import needs. */
export interface ProviderTool {
  id: string;
  name: string;
  type: string;
  description: string;
  /** Our tool definition, when the tool can be imported at all. */
  definition?: ImportedDefinition;
  /** Why it cannot be imported (empty when it can). */
  problems: string[];
  /** What the import leaves out or changes (the tool is imported nonetheless). */
  warnings: string[];
}

export interface ImportedDefinition {
  name: string;
  description: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: { key: string; mode: 'fixed'; value: string }[];
  parameters: (ToolField & { location: 'body' | 'query' })[];
  timeoutMs?: number;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const SCALAR = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** A JSON Schema type as ours: `["string","null"]` is a string that may be absent. */
function typeOf(schema: Json, path: string, warnings: string[]): ParameterType | undefined {
  let type = schema.type;
  if (Array.isArray(type)) {
    const kept = type.filter((t) => t !== 'null');
    if (kept.length !== 1) {
      warnings.push(`${path}: a value of several types (${type.join(', ')}) is not supported; left out`);
      return undefined;
    }
    type = kept[0];
  }
  if (type === undefined && isObject(schema.properties)) type = 'object';
  if (typeof type === 'string' && (PARAMETER_TYPES as readonly string[]).includes(type)) return type as ParameterType;
  warnings.push(`${path}: type ${JSON.stringify(type ?? 'unspecified')} is not supported; left out`);
  return undefined;
}

/** A JSON Schema object's properties as AI-filled fields, nested up to our limit. */
export function fieldsOf(schema: unknown, path: string, warnings: string[], depth = 0): ToolField[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields: ToolField[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const at = `${path}.${name}`;
    if (!new RegExp(TOOL_NAME_PATTERN).test(name)) {
      warnings.push(`${at}: the name is not one we accept (${TOOL_NAME_PATTERN}); left out`);
      continue;
    }
    if (!isObject(property)) continue;
    const type = typeOf(property, at, warnings);
    if (!type) continue;
    const field: ToolField = { name, type, fillMode: 'ai' };
    if (text(property.description)) field.description = text(property.description);
    if (required.has(name)) field.required = true;
    if (Array.isArray(property.enum)) {
      const scalars = property.enum.filter(SCALAR);
      if (scalars.length !== property.enum.length)
        warnings.push(`${at}: enum values that are not text, numbers or booleans were left out`);
      if (scalars.length > 0) field.allowedValues = scalars;
    }
    if (type === 'object') {
      if (depth + 1 >= MAX_NESTING) {
        warnings.push(`${at}: nested deeper than ${MAX_NESTING} levels; its fields were left out`);
      } else {
        field.fields = fieldsOf(property, at, warnings, depth + 1);
      }
    }
    if (type === 'array') {
      const items = isObject(property.items) ? property.items : {};
      const itemType = typeOf(items, `${at}[]`, warnings);
      if (!itemType || !(ITEM_TYPES as readonly string[]).includes(itemType)) {
        if (itemType) warnings.push(`${at}[]: arrays of arrays are not supported; the items' type was set to string`);
        field.items = { type: 'string' };
      } else {
        field.items = { type: itemType as Exclude<ParameterType, 'array'> };
        if (itemType === 'object') field.items.fields = fieldsOf(items, `${at}[]`, warnings, depth + 1);
        if (Array.isArray(items.enum)) field.items.allowedValues = items.enum.filter(SCALAR);
      }
    }
    fields.push(field);
  }
  return fields;
}

function headersOf(raw: unknown, where: string, warnings: string[]): ImportedDefinition['headers'] {
  if (!isObject(raw)) return [];
  const headers: ImportedDefinition['headers'] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === 'string') headers.push({ key, mode: 'fixed', value });
    else warnings.push(`${where}.${key}: a header whose value is not text was left out`);
  }
  return headers;
}

function parametersOf(schema: unknown, method: ImportedDefinition['method'], warnings: string[]) {
  const location = method === 'GET' || method === 'DELETE' ? ('query' as const) : ('body' as const);
  return fieldsOf(schema, '$.parameters', warnings).map((field) => ({ ...field, location }));
}

/** How one provider tool turns out: refused for a reason, or accepted with a definition; warnings gathered meanwhile. */
function importing(id: string, name: string, type: string, description: string) {
  const warnings: string[] = [];
  const nameProblem = new RegExp(TOOL_NAME_PATTERN).test(name)
    ? []
    : [`the name "${name}" is not one we accept (${TOOL_NAME_PATTERN})`];
  return {
    warnings,
    refuse: (problem: string): ProviderTool => ({
      id,
      name,
      type,
      description,
      problems: [problem, ...nameProblem],
      warnings,
    }),
    accept: (definition: Omit<ImportedDefinition, 'name' | 'description'>): ProviderTool =>
      nameProblem.length > 0
        ? { id, name, type, description, problems: nameProblem, warnings }
        : { id, name, type, description, problems: [], warnings, definition: { name, description, ...definition } },
  };
}

/** An HTTP method we accept, from a provider's text (default POST); undefined when it is not one. */
function methodOf(raw: unknown): ImportedDefinition['method'] | undefined {
  const method = (text(raw) ?? 'POST').toUpperCase();
  return (METHODS as readonly string[]).includes(method) ? (method as ImportedDefinition['method']) : undefined;
}

/** A timeout in ms held within ours (1–30 s), or undefined when none is given. */
const timeoutWithin = (ms: unknown) => (typeof ms === 'number' ? Math.min(30_000, Math.max(1000, ms)) : undefined);

/** A Vapi tool (`GET /tool`): function tools call a server, apiRequest tools call an endpoint; others run at Vapi. */
export function fromVapiTool(tool: Json): ProviderTool {
  const type = text(tool.type) ?? 'unknown';
  const fn = isObject(tool.function) ? tool.function : {};
  const name = text(fn.name) ?? text(tool.name) ?? '';
  const description = text(fn.description) ?? text(tool.description) ?? '';
  const { warnings, refuse, accept } = importing(text(tool.id) ?? '', name, type, description);
  if (type === 'function') {
    const server = isObject(tool.server) ? tool.server : {};
    const url = text(server.url);
    if (!url) return refuse('it has no server URL to call');
    const timeoutMs = timeoutWithin(
      typeof server.timeoutSeconds === 'number' ? server.timeoutSeconds * 1000 : undefined,
    );
    return accept({
      method: 'POST',
      url,
      headers: headersOf(server.headers, '$.server.headers', warnings),
      parameters: parametersOf(fn.parameters, 'POST', warnings),
      ...(timeoutMs ? { timeoutMs } : {}),
    });
  }
  if (type === 'apiRequest') {
    const url = text(tool.url);
    if (!url) return refuse('it has no URL');
    const method = methodOf(tool.method);
    if (!method) return refuse(`method ${text(tool.method)?.toUpperCase()} is not supported`);
    if (tool.headers !== undefined) {
      warnings.push(
        '$.headers: headers described as a JSON schema were left out; add them as fixed or variable headers',
      );
    }
    return accept({ method, url, headers: [], parameters: parametersOf(tool.body, method, warnings) });
  }
  return refuse(`Vapi ${type} tools run at Vapi; there is no endpoint of yours to call`);
}

/** A Retell custom tool (the agent's LLM's `general_tools`); the other kinds run at Retell. */
export function fromRetellTool(tool: Json, index: number): ProviderTool {
  const name = text(tool.name) ?? '';
  const type = text(tool.type) ?? 'unknown';
  const description = text(tool.description) ?? '';
  const { warnings, refuse, accept } = importing(name || `tool-${index}`, name, type, description);
  if (type !== 'custom') return refuse(`Retell ${type} tools run at Retell; there is no endpoint of yours to call`);
  const url = text(tool.url);
  if (!url) return refuse('it has no URL');
  const method = methodOf(tool.method);
  if (!method) return refuse(`method ${text(tool.method)?.toUpperCase()} is not supported`);
  if (tool.args_at_root !== true && method !== 'GET') {
    warnings.push(
      'Retell sent the arguments wrapped as {name, args, call}; Switchboard sends the arguments themselves as the body',
    );
  }
  const parameters = parametersOf(tool.parameters, method, warnings);
  if (isObject(tool.query_params)) {
    for (const [key, value] of Object.entries(tool.query_params)) {
      if (typeof value === 'string')
        parameters.push({ name: key, location: 'query', type: 'string', fillMode: 'fixed', value });
      else warnings.push(`$.query_params.${key}: a value that is not text was left out`);
    }
  }
  const timeoutMs = timeoutWithin(tool.timeout_ms);
  if (typeof tool.timeout_ms === 'number' && tool.timeout_ms > 30_000)
    warnings.push(`$.timeout_ms: ${tool.timeout_ms} ms is cut to 30000, our longest`);
  return accept({
    method,
    url,
    headers: headersOf(tool.headers, '$.headers', warnings),
    parameters,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}
