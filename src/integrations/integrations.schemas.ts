import { type Static, Type } from '@sinclair/typebox';
import { HEADER_VALUE_PATTERN, StringEnum } from '../lib/schema.js';
import { TRIGGER_OPERATORS } from './trigger-conditions.js';

export const TriggerConditionsSchema = Type.Object(
  {
    match: Type.Optional(StringEnum(['all', 'any'] as const, { default: 'all' })),
    conditions: Type.Array(
      Type.Object(
        {
          field: Type.String({ minLength: 1, maxLength: 200 }),
          operator: StringEnum(TRIGGER_OPERATORS),
          value: Type.Optional(Type.Unknown()),
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
  },
  { additionalProperties: false },
);

const integrationFields = {
  type: StringEnum(['webhook'] as const, { default: 'webhook' }),
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  enabled: Type.Boolean(),
  authorization: Type.Union(
    [Type.String({ minLength: 1, maxLength: 4096, pattern: HEADER_VALUE_PATTERN }), Type.Null()],
    {
      description:
        'Sent as "Authorization: Bearer <token>". Write-only: read back masked; the mask written back keeps it, ' +
        'unless the URL moves to another origin, where it must be given again.',
    },
  ),
  signing: Type.Boolean({ default: true }),
  triggerConditions: Type.Union([TriggerConditionsSchema, Type.Null()]),
};

const { url, ...optionalFields } = integrationFields;

export const CreateIntegrationBody = Type.Composite([Type.Object({ url }), Type.Partial(Type.Object(optionalFields))], {
  additionalProperties: false,
});
export type CreateIntegrationInput = Static<typeof CreateIntegrationBody>;

export const UpdateIntegrationBody = Type.Partial(Type.Object(integrationFields), { additionalProperties: false });
export type UpdateIntegrationInput = Static<typeof UpdateIntegrationBody>;
