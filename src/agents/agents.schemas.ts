import { type Static, Type } from '@sinclair/typebox';
import { CountedPageOf, FreeObject, Name, Nullable, ref, StringEnum, Timestamp } from '../lib/schema.js';
import { PROVIDER_NAMES } from '../providers/provider-names.js';

export const AGENT_TYPES = ['click_to_call', 'inbound', 'outbound'] as const;
export const PROVIDERS = PROVIDER_NAMES;
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
    answers: Type.Optional(
      Type.Array(StringEnum(['answered', 'no_answer', 'busy', 'voicemail', 'fail_to_start'] as const), {
        minItems: 1,
        maxItems: 20,
        description:
          "How the agent's n-th call to a number is answered: answers[n - 1], the last repeating once the list is used up; wins over `answer`",
      }),
    ),
    turns: Type.Optional(Type.Array(SimulatorTurn, { maxItems: 200 })),
    outcome: Type.Optional(
      Type.Object(
        {
          status: Type.Optional(OutcomeStatus),
          collectedData: Type.Optional(
            Type.Record(Type.String(), Type.Unknown(), {
              description:
                'What the call collected; when the agent declares `collect`, only its names, each a value of the declared type',
            }),
          ),
          summary: Type.Optional(
            Type.String({
              maxLength: 2000,
              description: "The call's summary, as a provider's end-of-call report gives one",
            }),
          ),
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

export const COLLECT_TYPES = ['string', 'number', 'boolean', 'enum'] as const;
/** A name the provider's extraction and trigger conditions (`collectedData.<name>`) can both use. */
export const COLLECT_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
export const MAX_COLLECT_FIELDS = 50;
export const VOICEMAIL_ACTIONS = ['hang_up', 'leave_message'] as const;

/** One value the agent collects in a call (docs/interface.md#agents). */
const CollectFieldInput = Type.Object(
  {
    name: Type.String({ pattern: COLLECT_NAME_PATTERN, description: 'An identifier, unique in the agent' }),
    type: StringEnum(COLLECT_TYPES),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'What the provider should extract' })),
    choices: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 50, uniqueItems: true }),
    ),
    required: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const VoiceInput = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 50, examples: ['11labs'] }),
    voiceId: Type.String({ minLength: 1, maxLength: 200, examples: ['burt'] }),
  },
  { additionalProperties: false },
);

const ModelInput = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 50, examples: ['openai'] }),
    name: Type.String({ minLength: 1, maxLength: 100, examples: ['gpt-4o-mini'] }),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
  },
  { additionalProperties: false },
);

const VoicemailInput = Type.Object(
  {
    action: StringEnum(VOICEMAIL_ACTIONS),
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);

/** The most bytes `providerSettings` may have as JSON, and how deeply it may nest (decision 0036). */
export const PROVIDER_SETTINGS_MAX_BYTES = 16 * 1024;
export const PROVIDER_SETTINGS_MAX_DEPTH = 8;

/** How many outcomes may list a number on the do-not-call list (an agent's or a campaign's `doNotCallOutcomes`). */
export const MAX_DO_NOT_CALL_OUTCOMES = 20;

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
  doNotCallOutcomes: Type.Array(OutcomeStatus, {
    maxItems: MAX_DO_NOT_CALL_OUTCOMES,
    uniqueItems: true,
    description:
      "Outcomes that put the number called on the organization's do-not-call list when a call ends with one, e.g. DO_NOT_CALL; default []",
  }),
  simulator: Type.Union([SimulatorScenario, Type.Null()]),
  collect: Type.Array(CollectFieldInput, {
    maxItems: MAX_COLLECT_FIELDS,
    description: "What the agent collects in a call: its values become the outcome's `collectedData`",
  }),
  voice: Nullable(VoiceInput, { description: "The voice; null: the provider's default" }),
  model: Nullable(ModelInput, { description: 'The language model; null: the default (decision 0036)' }),
  language: Nullable(Type.String({ minLength: 1, maxLength: 35, examples: ['en-US'] }), {
    description: "A BCP-47 language tag (en-US, es-ES); null: the provider's default",
  }),
  voicemail: Nullable(VoicemailInput, {
    description: "What to do on reaching voicemail; message required to leave_message. null: the provider's default",
  }),
  providerSettings: Nullable(FreeObject(), {
    description:
      "Merged last into what is published to the provider; checked against the provider's published schema. At most 16 KiB as JSON, 8 levels deep",
  }),
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

/** One value the agent collects, as the API shows it. */
export const AgentCollectField = Type.Object(
  {
    name: Type.String({ examples: ['email'] }),
    type: StringEnum(COLLECT_TYPES),
    description: Type.String(),
    choices: Type.Optional(Type.Array(Type.String(), { description: 'Only for an enum: its values' })),
    required: Type.Boolean(),
  },
  { $id: 'AgentCollectField' },
);
export type AgentCollectField = Static<typeof AgentCollectField>;

export const AgentVoice = Type.Object(
  {
    provider: Type.String({ examples: ['11labs'] }),
    voiceId: Type.String({ examples: ['burt'] }),
  },
  { $id: 'AgentVoice' },
);
export type AgentVoice = Static<typeof AgentVoice>;

export const AgentModel = Type.Object(
  {
    provider: Type.String({ examples: ['openai'] }),
    name: Type.String({ examples: ['gpt-4o-mini'] }),
    temperature: Type.Optional(Type.Number({ description: "Absent: the provider's default" })),
  },
  { $id: 'AgentModel' },
);
export type AgentModel = Static<typeof AgentModel>;

export const AgentVoicemail = Type.Object(
  {
    action: StringEnum(VOICEMAIL_ACTIONS),
    message: Type.Optional(Type.String({ description: 'Said to the voicemail (leave_message); {{variables}} filled' })),
  },
  { $id: 'AgentVoicemail' },
);
export type AgentVoicemail = Static<typeof AgentVoicemail>;

/** An agent as the API shows it (docs/interface.md#agents). */
export const AgentView = Type.Object(
  {
    id: Type.String({ examples: ['agt_01JD8Y6Q4S'] }),
    name: Type.String(),
    type: StringEnum(AGENT_TYPES),
    enabled: Type.Boolean(),
    provider: StringEnum(PROVIDERS),
    providerCredentialId: Nullable(Type.String()),
    prompt: Type.String(),
    firstMessage: Type.String(),
    fromNumber: Nullable(Type.String()),
    disableSignatureVerification: Type.Boolean(),
    requireSignatureTimestamp: Type.Boolean({
      description: 'Click to call requires the signature-timestamp header (decision 0031)',
    }),
    allowedCountries: Nullable(Type.Array(Type.String()), {
      description: 'The countries click to call may dial, ISO 3166 alpha-2; null: every country',
    }),
    maxConcurrentCalls: Nullable(Type.Integer()),
    rateLimitPerMinute: Nullable(Type.Integer()),
    maxCallDurationSeconds: Type.Integer(),
    toolIds: Type.Array(Type.String()),
    outcomes: Type.Array(Type.String()),
    doNotCallOutcomes: Type.Array(Type.String(), {
      description: "A call that ends with one of these outcomes puts its number on the organization's do-not-call list",
    }),
    simulator: Nullable(SimulatorScenario),
    collect: Type.Array(ref(AgentCollectField)),
    voice: Nullable(ref(AgentVoice), { description: "null: the provider's default voice (decision 0036)" }),
    model: Nullable(ref(AgentModel), { description: 'null: the default model (decision 0036)' }),
    language: Nullable(Type.String(), { description: "A canonical BCP-47 tag; null: the provider's default" }),
    voicemail: Nullable(ref(AgentVoicemail), { description: "null: the provider's default (no detection)" }),
    providerSettings: Nullable(FreeObject(), { description: 'Merged last into what is published' }),
    providerSync: Type.Object(
      {
        state: StringEnum(['synced', 'pending', 'failed'] as const),
        error: Nullable(Type.String()),
        syncedAt: Nullable(Timestamp()),
        providerAgentId: Type.Optional(Nullable(Type.String())),
      },
      {
        description:
          "Publishing to the provider: the provider's error when it failed, its id for the agent once published",
      },
    ),
    configured: Type.Boolean({ description: 'Whether click to call can start calls through this agent' }),
    variables: Type.Array(Type.String(), {
      description: 'The {{variables}} the prompt, first message and voicemail message use',
    }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'Agent' },
);
export type AgentView = Static<typeof AgentView>;

export const AgentPage = CountedPageOf(ref(AgentView), 'AgentPage');

/** A click-to-call agent's credentials, with instructions and ready-to-paste examples. */
export const AgentCredentials = Type.Object(
  {
    apiToken: Type.String({ description: 'Sent as the api-key header' }),
    apiSecret: Type.String({ description: 'Signs each request (HMAC-SHA256); never sent' }),
    endpoint: Type.String({ description: 'Where to send click to call' }),
    instructions: Type.String({ description: 'Plain-text instructions with the three examples' }),
    examples: Type.Object({ curl: Type.String(), node: Type.String(), python: Type.String() }),
  },
  { $id: 'AgentCredentials' },
);
export type AgentCredentials = Static<typeof AgentCredentials>;

export const AGENT_VIEWS = [
  AgentCollectField,
  AgentVoice,
  AgentModel,
  AgentVoicemail,
  AgentView,
  AgentPage,
  AgentCredentials,
];
