import { type Static, Type } from '@sinclair/typebox';
import { PROVIDERS } from '../agents/agents.schemas.js';
import { DeliveryView } from '../deliveries/deliveries.schemas.js';
import { CappedPageOf, FreeObject, Nullable, ref, StringEnum, Timestamp } from '../lib/schema.js';
import { ToolInvocationView } from '../tools/tools.schemas.js';

export const CALL_STATUSES = ['queued', 'ringing', 'in_progress', 'ended'] as const;
/** `outbound`: placed by click to call or `POST /v1/calls`; `inbound`: a caller rang one of our numbers. */
export const CALL_DIRECTIONS = ['outbound', 'inbound'] as const;
/**
 * How GET /v1/calls and its CSV export order calls: by creation time or duration, `-` for
 * descending. Calls with no duration yet come last in both duration orders.
 */
export const CALL_SORTS = ['-createdAt', 'createdAt', '-durationSeconds', 'durationSeconds'] as const;
export type CallSort = (typeof CALL_SORTS)[number];

export const TranscriptTurnView = Type.Object(
  {
    role: StringEnum(['agent', 'user', 'tool'] as const),
    name: Type.Optional(Type.String({ description: "A tool turn: the tool's name" })),
    text: Type.String(),
    at: Type.String({ description: 'ISO 8601' }),
  },
  { $id: 'TranscriptTurn' },
);

/** A call as the API shows it (docs/interface.md#calls). */
export const CallView = Type.Object(
  {
    id: Type.String({ examples: ['call_01JD8Y6Q4T'] }),
    agentId: Type.String(),
    provider: StringEnum(PROVIDERS),
    providerCallId: Nullable(Type.String()),
    direction: StringEnum(CALL_DIRECTIONS, {
      description: 'outbound: placed by click to call or POST /v1/calls; inbound: a caller rang one of our numbers',
    }),
    from: Type.String({ description: "The agent's number, or the simulated caller id +15555550100" }),
    to: Type.String(),
    status: StringEnum(CALL_STATUSES),
    outcome: Nullable(Type.String()),
    endedReason: Nullable(Type.String()),
    error: Nullable(Type.String()),
    variables: FreeObject({ description: 'The click-to-call variables, as sent' }),
    collectedData: FreeObject({
      description:
        "What the call gathered, typed as the agent's `collect` declares it (every reported key when it declares nothing)",
    }),
    summary: Nullable(Type.String(), {
      description: "The provider's summary of the call (the simulator's: its scenario's), once ended",
    }),
    recordingUrl: Nullable(Type.String(), {
      description: 'Where the provider keeps the recording (http or https), when it made one',
    }),
    warnings: Type.Array(Type.String(), {
      description:
        'What the end-of-call report said that could not be kept as it was, e.g. `collectedData.age: expected a number, got "forty"`',
    }),
    transcript: Type.Array(ref(TranscriptTurnView)),
    toolInvocations: Type.Array(ref(ToolInvocationView)),
    deliveries: Type.Array(ref(DeliveryView)),
    createdAt: Timestamp(),
    startedAt: Nullable(Timestamp()),
    answeredAt: Nullable(Timestamp()),
    endedAt: Nullable(Timestamp()),
    durationSeconds: Nullable(Type.Integer()),
    campaignId: Nullable(Type.String(), {
      description: 'The campaign that placed the call; null: not a campaign call',
    }),
    contactId: Nullable(Type.String(), {
      description: "The campaign's contact the call was placed for; null: not a campaign call",
    }),
  },
  { $id: 'Call' },
);
export type CallView = Static<typeof CallView>;

/**
 * `total` stops counting at 10,000 (decision 0053): above it `total` is 10,000 and `totalCapped`
 * says there are more.
 */
export const CallPage = CappedPageOf(ref(CallView), 'CallPage', 'calls');

export const CALL_VIEWS = [TranscriptTurnView, CallView, CallPage];
