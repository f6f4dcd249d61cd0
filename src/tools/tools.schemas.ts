import { type Static, type TSchema, Type } from '@sinclair/typebox';
import {
  CountedPageOf,
  FreeObject,
  HEADER_VALUE_PATTERN,
  Nullable,
  ref,
  StringEnum,
  Timestamp,
} from '../lib/schema.js';

export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const PARAMETER_LOCATIONS = ['body', 'query', 'path'] as const;
export const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;
export const ITEM_TYPES = ['string', 'number', 'integer', 'boolean', 'object'] as const;
export const FILL_MODES = ['ai', 'variable', 'fixed'] as const;
export const HEADER_MODES = ['fixed', 'variable'] as const;

export type ParameterType = (typeof PARAMETER_TYPES)[number];
export type FillMode = (typeof FILL_MODES)[number];

/** How deep objects and arrays of objects may nest inside a parameter (checked with the other rules). */
export const MAX_NESTING = 5;

export const TOOL_NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const VARIABLE_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';
// RFC 9110 token characters: what a header name may be made of.
const HEADER_KEY_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$";

const Scalar = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]);
const AllowedValues = Type.Array(Scalar, { minItems: 1, maxItems: 200 });

// Object fields nest: the shared schema `ToolField` refers to itself, so the validator is compiled
// once per level kind rather than once per possible path (an unrolled tree of five levels compiled
// to 1.5 MB of code per body and 50 MB of memory). Shared (registered with `app.addSchema`, shown
// under components/schemas), so the reference resolves from the document's root as from a route's.
const NESTED_FIELDS = Type.Array(Type.Unsafe<ToolField>(Type.Ref('ToolField')), { maxItems: 100 });

function fieldSchema(location: boolean): TSchema {
  return Type.Object(
    {
      name: Type.String({ pattern: TOOL_NAME_PATTERN }),
      ...(location ? { location: StringEnum(PARAMETER_LOCATIONS) } : {}),
      type: StringEnum(PARAMETER_TYPES),
      fillMode: StringEnum(FILL_MODES),
      value: Type.Optional(
        Type.Unknown({ description: 'Fixed: the constant. Variable: text with {{variable}} references.' }),
      ),
      description: Type.Optional(Type.String({ maxLength: 1200 })),
      allowedValues: Type.Optional(AllowedValues),
      required: Type.Optional(Type.Boolean()),
      fields: Type.Optional(NESTED_FIELDS),
      items: Type.Optional(
        Type.Object(
          {
            type: StringEnum(ITEM_TYPES),
            fields: Type.Optional(NESTED_FIELDS),
            allowedValues: Type.Optional(AllowedValues),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  );
}

/** A field of an object parameter (or of an array's objects): nests to `MAX_NESTING` levels. */
export const ToolFieldSchema = Type.Unsafe<ToolField>({ ...fieldSchema(false), $id: 'ToolField' });

export interface ToolField {
  name: string;
  type: ParameterType;
  fillMode: FillMode;
  value?: unknown;
  description?: string;
  allowedValues?: (string | number | boolean)[];
  required?: boolean;
  fields?: ToolField[];
  items?: {
    type: Exclude<ParameterType, 'array'>;
    fields?: ToolField[];
    allowedValues?: (string | number | boolean)[];
  };
}

export interface ToolParameter extends ToolField {
  location: (typeof PARAMETER_LOCATIONS)[number];
}

export const ToolParameterSchema = fieldSchema(true);

export const ToolHeaderSchema = Type.Object(
  {
    key: Type.String({ pattern: HEADER_KEY_PATTERN }),
    mode: StringEnum(HEADER_MODES),
    value: Type.String({ maxLength: 8192, pattern: HEADER_VALUE_PATTERN }),
    secret: Type.Optional(
      Type.Boolean({
        description:
          'Stored encrypted and read back masked (Fixed values). Default: true for Authorization, Cookie and names containing key, token, secret, password, auth or signature. ' +
          'The mask written back keeps the stored value of a header of the same key that stays secret and Fixed; when the URL moves to another origin, every secret value must be given again.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ToolHeader = Static<typeof ToolHeaderSchema>;

export const ToolVariableSchema = Type.Object(
  {
    name: Type.String({ pattern: VARIABLE_NAME_PATTERN }),
    defaultValue: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: false },
);
export type ToolVariable = Static<typeof ToolVariableSchema>;

const toolFields = {
  name: Type.String({ pattern: TOOL_NAME_PATTERN }),
  description: Type.String({ maxLength: 1200 }),
  method: StringEnum(TOOL_METHODS),
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  headers: Type.Array(ToolHeaderSchema, { maxItems: 50 }),
  parameters: Type.Array(ToolParameterSchema, { maxItems: 100 }),
  variables: Type.Array(ToolVariableSchema, { maxItems: 100 }),
  timeoutMs: Type.Integer({ minimum: 1000, maximum: 30_000, default: 10_000 }),
};

const { name, method, url, ...optionalToolFields } = toolFields;

export const CreateToolBody = Type.Composite(
  [Type.Object({ name, method, url }), Type.Partial(Type.Object(optionalToolFields))],
  { additionalProperties: false },
);
export type CreateToolInput = Omit<Static<typeof CreateToolBody>, 'parameters'> & { parameters?: ToolParameter[] };

export const UpdateToolBody = Type.Partial(Type.Object(toolFields), { additionalProperties: false });
export type UpdateToolInput = Omit<Static<typeof UpdateToolBody>, 'parameters'> & { parameters?: ToolParameter[] };

export const TestToolBody = Type.Object(
  {
    args: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The AI-filled arguments' })),
    variables: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "Stand-ins for a call's click-to-call variables" }),
    ),
  },
  { additionalProperties: false },
);
export type TestToolInput = Static<typeof TestToolBody>;

/** A tool as the API shows it: secret header values masked, the model's schema compiled. */
export const ToolView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    method: StringEnum(TOOL_METHODS),
    url: Type.String(),
    headers: Type.Array(
      Type.Object({
        key: Type.String(),
        mode: StringEnum(HEADER_MODES),
        value: Type.String({ description: 'The mask •••••• for a secret Fixed value' }),
        secret: Type.Boolean(),
      }),
    ),
    parameters: Type.Array(ToolParameterSchema),
    variables: Type.Array(ToolVariableSchema),
    timeoutMs: Type.Integer(),
    aiSchema: FreeObject({ description: 'The JSON Schema the model fills the AI parameters with (read-only)' }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'Tool' },
);
export type ToolView = Static<typeof ToolView>;

export const ToolPage = CountedPageOf(ref(ToolView), 'ToolPage');

export const ToolPreview = Type.Object(
  { aiSchema: FreeObject({ description: 'The JSON Schema the model would fill' }) },
  { $id: 'ToolPreview' },
);

/** A request as sent: secret header values masked, the body as the exact text sent (or none). */
export const RecordedRequest = Type.Object(
  {
    method: Type.String(),
    url: Type.String(),
    headers: Type.Record(Type.String(), Type.String()),
    body: Nullable(Type.String()),
  },
  { $id: 'RecordedRequest' },
);

const ToolResponse = Nullable(Type.Object({ status: Type.Integer(), body: Type.String() }), {
  description: 'What the endpoint answered (its body cut to 16 KiB); null when nothing was sent or nothing came back',
});

/** One run of a tool outside any call (`POST /v1/tools/:id/test`). */
export const ToolTestResult = Type.Object(
  {
    request: Nullable(ref(RecordedRequest), { description: 'null when nothing was sent' }),
    response: ToolResponse,
    result: Type.String({ description: 'What the agent would be handed: the body, or a short error' }),
    error: Nullable(Type.String()),
    latencyMs: Type.Number(),
  },
  { $id: 'ToolTestResult' },
);

/** A tool invocation during a call, as the call shows it. */
export const ToolInvocationView = Type.Object(
  {
    id: Type.String(),
    toolId: Nullable(Type.String({ description: 'null when the name matched no attached tool' })),
    name: Type.String(),
    arguments: Type.Unknown({ description: 'As the model gave them' }),
    request: Nullable(ref(RecordedRequest)),
    response: ToolResponse,
    result: Type.String(),
    error: Nullable(Type.String()),
    latencyMs: Type.Number(),
    at: Timestamp(),
  },
  { $id: 'ToolInvocation' },
);
export type ToolInvocationView = Static<typeof ToolInvocationView>;

export const TOOL_VIEWS = [
  ToolFieldSchema,
  ToolView,
  ToolPage,
  ToolPreview,
  RecordedRequest,
  ToolTestResult,
  ToolInvocationView,
];
