import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { HEADER_VALUE_PATTERN, StringEnum } from '../lib/schema.js';

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

// Object fields nest: the schema refers to itself through `$defs` at the root of each body, so the
// validator is compiled once per level kind rather than once per possible path (an unrolled tree
// of five levels compiled to 1.5 MB of code per body and 50 MB of memory).
const NESTED_FIELDS = Type.Array(Type.Unsafe<ToolField>({ $ref: '#/$defs/toolField' }), { maxItems: 100 });

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

/** A body schema whose parameters may nest fields: the shared definition they refer to, at its root. */
function withFieldDefinitions<T extends TSchema>(schema: T): T {
  return { ...schema, $defs: { toolField: fieldSchema(false) } };
}

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

export const CreateToolBody = withFieldDefinitions(
  Type.Composite([Type.Object({ name, method, url }), Type.Partial(Type.Object(optionalToolFields))], {
    additionalProperties: false,
  }),
);
export type CreateToolInput = Omit<Static<typeof CreateToolBody>, 'parameters'> & { parameters?: ToolParameter[] };

export const UpdateToolBody = withFieldDefinitions(
  Type.Partial(Type.Object(toolFields), { additionalProperties: false }),
);
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
