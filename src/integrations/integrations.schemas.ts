import { type Static, Type } from '@sinclair/typebox';
import { DeliveryAttemptView } from '../deliveries/deliveries.schemas.js';
import { HEADER_VALUE_PATTERN, Nullable, PageOf, ref, StringEnum, Timestamp } from '../lib/schema.js';
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

/** An integration as the API shows it: the bearer token masked, the signing secret shown (docs/interface.md#integrations). */
export const IntegrationView = Type.Object(
  {
    id: Type.String(),
    agentId: Type.String(),
    type: StringEnum(['webhook'] as const),
    url: Type.String(),
    enabled: Type.Boolean(),
    authorization: Nullable(Type.String(), { description: 'The mask ••••••, or null when there is none' }),
    signing: Type.Boolean(),
    signingSecret: Type.String({ description: 'whsec_…; the mask •••••• in lists' }),
    previousSigningSecretExpiresAt: Nullable(Timestamp(), {
      description: 'Until then the rotated-out secret signs too',
    }),
    triggerConditions: Nullable(TriggerConditionsSchema),
    disabledReason: Nullable(Type.String()),
    failingSince: Nullable(Timestamp()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'Integration' },
);
export type IntegrationView = Static<typeof IntegrationView>;

export const IntegrationPage = PageOf(ref(IntegrationView), 'IntegrationPage');

/** "Send test": the request sent, exactly (the bearer token masked), and what came back. */
export const IntegrationTestResult = Type.Object(
  {
    delivered: Type.Boolean(),
    request: Type.Object({
      method: Type.String(),
      url: Type.String(),
      headers: Type.Record(Type.String(), Type.String()),
      body: Type.String(),
    }),
    attempt: ref(DeliveryAttemptView),
  },
  { $id: 'IntegrationTestResult' },
);

export const INTEGRATION_VIEWS = [IntegrationView, IntegrationPage, IntegrationTestResult];
