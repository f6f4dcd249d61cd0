import type { ParameterType, Tool, ToolField, ToolParameter } from '../../api.js';

/**
 * The tool editor's state: what the person types, kept as text until it is sent. Every list keeps
 * the order and length of the API's arrays, so the API's paths (`$.parameters[0].fields[2]`) name
 * the same rows here.
 */

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const LOCATIONS = ['body', 'query', 'path'] as const;
export const TYPES: ParameterType[] = ['string', 'number', 'integer', 'boolean', 'object', 'array'];
export type ItemType = Exclude<ParameterType, 'array'>;
export const ITEM_TYPES: ItemType[] = ['string', 'number', 'integer', 'boolean', 'object'];
export const FILL_MODES = [
  { value: 'ai', label: 'AI' },
  { value: 'variable', label: 'Variable' },
  { value: 'fixed', label: 'Fixed' },
] as const;
export const DESCRIPTION_LIMIT = 1200;
/**
 * How deep the API lets objects nest (MAX_NESTING in src/tools/tools.schemas.ts): a field this deep
 * may not have fields of its own. Only used to stop offering "Add field"; the API has the last word.
 */
export const MAX_NESTING = 5;

export type FillMode = ToolField['fillMode'];
export type Method = (typeof METHODS)[number];
export type Location = (typeof LOCATIONS)[number];

export interface HeaderDraft {
  key: string;
  name: string;
  mode: 'fixed' | 'variable';
  value: string;
  /** Undefined until the person says: the API then decides from the name (Authorization, *token*…). */
  secret: boolean | undefined;
}

export interface FieldDraft {
  key: string;
  name: string;
  /** Used on parameters (the top level) only. */
  location: Location;
  type: ParameterType;
  fillMode: FillMode;
  value: string;
  description: string;
  required: boolean;
  /** The allowed values, comma-separated (`basic, pro`). */
  allowedValues: string;
  fields: FieldDraft[];
  itemType: ItemType;
  itemFields: FieldDraft[];
  itemAllowedValues: string;
}

export interface VariableDraft {
  key: string;
  name: string;
  defaultValue: string;
}

export interface ToolDraft {
  name: string;
  description: string;
  method: Method;
  url: string;
  timeoutMs: string;
  headers: HeaderDraft[];
  parameters: FieldDraft[];
  variables: VariableDraft[];
}

let keys = 0;
/** A stable React key for a row (indexes shift when a row above is removed). */
export const rowKey = (): string => `row${++keys}`;

export function emptyDraft(): ToolDraft {
  return {
    name: '',
    description: '',
    method: 'POST',
    url: '',
    timeoutMs: '10000',
    headers: [],
    parameters: [],
    variables: [],
  };
}

export const newHeader = (): HeaderDraft => ({ key: rowKey(), name: '', mode: 'fixed', value: '', secret: undefined });
export const newVariable = (): VariableDraft => ({ key: rowKey(), name: '', defaultValue: '' });
export function newField(): FieldDraft {
  return {
    key: rowKey(),
    name: '',
    location: 'body',
    type: 'string',
    fillMode: 'ai',
    value: '',
    description: '',
    required: false,
    allowedValues: '',
    fields: [],
    itemType: 'string',
    itemFields: [],
    itemAllowedValues: '',
  };
}

const textOf = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
const commaListOf = (values: unknown[] | undefined): string => (values ?? []).map(String).join(', ');

function fieldDraftOf(field: ToolField & { location?: Location }): FieldDraft {
  return {
    key: rowKey(),
    name: field.name,
    location: field.location ?? 'body',
    type: field.type,
    fillMode: field.fillMode,
    value: textOf(field.value),
    description: field.description ?? '',
    required: field.required === true,
    allowedValues: commaListOf(field.allowedValues),
    fields: (field.fields ?? []).map(fieldDraftOf),
    itemType: field.items?.type ?? 'string',
    itemFields: (field.items?.fields ?? []).map(fieldDraftOf),
    itemAllowedValues: commaListOf(field.items?.allowedValues),
  };
}

export function draftOf(tool: Tool): ToolDraft {
  return {
    name: tool.name,
    description: tool.description,
    method: tool.method,
    url: tool.url,
    timeoutMs: String(tool.timeoutMs),
    headers: tool.headers.map((h) => ({ key: rowKey(), name: h.key, mode: h.mode, value: h.value, secret: h.secret })),
    parameters: tool.parameters.map(fieldDraftOf),
    variables: tool.variables.map((v) => ({ key: rowKey(), name: v.name, defaultValue: v.defaultValue ?? '' })),
  };
}

/**
 * Allowed values typed as a comma-separated list (`basic, pro`), as the seed, the agent's Outcomes
 * and the "is one of" condition write them, each trimmed, as the type's values: `42` is a number
 * for a number, `true` a boolean for a boolean. A value that does not convert is sent as typed, so
 * the API names it. Line breaks separate values too, so a list pasted one a line still works.
 */
export function allowedValuesOf(text: string, type: ParameterType): (string | number | boolean)[] | undefined {
  const lines = text
    .split(/[,\n]/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length === 0) return undefined;
  return lines.map((line) => {
    if ((type === 'number' || type === 'integer') && line !== '' && Number.isFinite(Number(line))) return Number(line);
    if (type === 'boolean' && /^(true|false)$/i.test(line)) return line.toLowerCase() === 'true';
    return line;
  });
}

const SCALARS = new Set<ParameterType>(['string', 'number', 'integer', 'boolean']);
export const isScalar = (type: ParameterType): boolean => SCALARS.has(type);

/** A field as the API takes it; what the chosen type does not use (hidden in the form) is left out. */
function fieldOf(draft: FieldDraft): ToolField {
  const field: ToolField = { name: draft.name, type: draft.type, fillMode: draft.fillMode };
  // Fixed and Variable values go as text: the API converts "42" to 42, JSON text to objects.
  if (draft.fillMode !== 'ai' && draft.value !== '') field.value = draft.value;
  if (draft.description !== '') field.description = draft.description;
  if (draft.required) field.required = true;
  const allowed = isScalar(draft.type) ? allowedValuesOf(draft.allowedValues, draft.type) : undefined;
  if (allowed) field.allowedValues = allowed;
  if (draft.type === 'object' && draft.fields.length > 0) field.fields = draft.fields.map(fieldOf);
  if (draft.type === 'array') {
    const itemAllowed = isScalar(draft.itemType) ? allowedValuesOf(draft.itemAllowedValues, draft.itemType) : undefined;
    field.items = {
      type: draft.itemType,
      ...(draft.itemType === 'object' && draft.itemFields.length > 0 ? { fields: draft.itemFields.map(fieldOf) } : {}),
      ...(itemAllowed ? { allowedValues: itemAllowed } : {}),
    };
  }
  return field;
}

export interface ToolBody {
  name: string;
  description: string;
  method: Method;
  url: string;
  /** Text that is not a number is sent as typed, so the API's refusal names the field. */
  timeoutMs: number | string;
  headers: { key: string; mode: 'fixed' | 'variable'; value: string; secret?: boolean }[];
  parameters: ToolParameter[];
  variables: { name: string; defaultValue?: string }[];
}

/** The body of `POST /v1/tools`, `PATCH /v1/tools/:id` and `POST /v1/tools/preview`. */
export function bodyOf(draft: ToolDraft): ToolBody {
  const timeout = draft.timeoutMs.trim();
  return {
    name: draft.name,
    description: draft.description,
    method: draft.method,
    url: draft.url,
    timeoutMs: timeout !== '' && Number.isFinite(Number(timeout)) ? Number(timeout) : timeout,
    headers: draft.headers.map((h) => ({
      key: h.name,
      mode: h.mode,
      value: h.value,
      ...(h.secret === undefined ? {} : { secret: h.secret }),
    })),
    parameters: draft.parameters.map((p) => ({ ...fieldOf(p), location: p.location })),
    variables: draft.variables.map((v) => ({
      name: v.name,
      ...(v.defaultValue !== '' ? { defaultValue: v.defaultValue } : {}),
    })),
  };
}

/** Characters as the API counts them for `maxLength` (code points, not UTF-16 units). */
export const lengthOf = (text: string): number => [...text].length;

type Schema = {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
};

/** An example value of a JSON Schema, to start the Test panel's arguments from something that fits. */
export function exampleOf(schema: unknown): unknown {
  const s = (schema ?? {}) as Schema;
  if (s.enum && s.enum.length > 0) return s.enum[0];
  switch (s.type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([name, child]) => [name, exampleOf(child)]));
    case 'array':
      return s.items ? [exampleOf(s.items)] : [];
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return '';
  }
}
