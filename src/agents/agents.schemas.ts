import { type Static, Type } from '@sinclair/typebox';
import { Name, StringEnum } from '../lib/schema.js';

export const AGENT_TYPES = ['click_to_call', 'inbound', 'outbound'] as const;
export const PROVIDERS = ['simulator', 'vapi', 'retell'] as const;
export const DEFAULT_OUTCOMES = [
  'SOLD',
  'INTERESTED',
  'NOT_INTERESTED',
  'CALLBACK',
  'NO_ANSWER',
  'VOICEMAIL',
  'BUSY',
  'FAILED',
  'COMPLETED',
];

export const OutcomeStatus = Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,63}$', description: 'UPPER_SNAKE_CASE' });

export const SimulatorTurn = Type.Union([
  Type.Object(
    { role: StringEnum(['user', 'agent'] as const), text: Type.String({ maxLength: 4000 }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      tool: Type.String({ minLength: 1, maxLength: 64 }),
      args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
]);

/** How the simulator runs an agent's calls (docs/interface.md#simulator). */
export const SimulatorScenario = Type.Object(
  {
    answer: Type.Optional(StringEnum(['answered', 'no_answer', 'busy', 'voicemail', 'fail_to_start'] as const)),
    turns: Type.Optional(Type.Array(SimulatorTurn, { maxItems: 200 })),
    outcome: Type.Optional(
      Type.Object(
        {
          status: Type.Optional(OutcomeStatus),
          collectedData: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        },
        { additionalProperties: false },
      ),
    ),
    durationSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
    delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
  },
  { additionalProperties: false },
);
export type SimulatorScenario = Static<typeof SimulatorScenario>;

/** More codes than there are countries (libphonenumber knows 245), so a list of them all fits. */
export const MAX_ALLOWED_COUNTRIES = 250;

const agentFields = {
  name: Name(),
  type: StringEnum(AGENT_TYPES),
  enabled: Type.Boolean(),
  provider: StringEnum(PROVIDERS),
  providerCredentialId: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]),
  prompt: Type.String({ maxLength: 20_000 }),
  firstMessage: Type.String({ maxLength: 2000 }),
  fromNumber: Type.Union([Type.String({ maxLength: 20 }), Type.Null()]),
  disableSignatureVerification: Type.Boolean(),
  requireSignatureTimestamp: Type.Boolean({
    description:
      'Click to call refuses a request without the signature-timestamp header (ctc:001); default false (decision 0031)',
  }),
  allowedCountries: Type.Union(
    [
      Type.Array(Type.String({ minLength: 2, maxLength: 2, examples: ['US'] }), {
        minItems: 1,
        maxItems: MAX_ALLOWED_COUNTRIES,
      }),
      Type.Null(),
    ],
    {
      description:
        'ISO 3166 alpha-2 codes of the countries click to call may dial (ctc:009 for another); null, the default: every country. Duplicates are dropped.',
    },
  ),
  maxConcurrentCalls: Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()]),
  rateLimitPerMinute: Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()]),
  maxCallDurationSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
  toolIds: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 128, uniqueItems: true }),
  outcomes: Type.Array(OutcomeStatus, { minItems: 1, maxItems: 50, uniqueItems: true }),
  simulator: Type.Union([SimulatorScenario, Type.Null()]),
};

const { name, ...optionalFields } = agentFields;

export const CreateAgentBody = Type.Composite([Type.Object({ name }), Type.Partial(Type.Object(optionalFields))], {
  additionalProperties: false,
});
export type CreateAgentInput = Static<typeof CreateAgentBody>;

export const UpdateAgentBody = Type.Partial(Type.Object(agentFields), { additionalProperties: false });
export type UpdateAgentInput = Static<typeof UpdateAgentBody>;

export const ListQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
