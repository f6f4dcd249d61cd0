import { type Static, Type } from '@sinclair/typebox';
import { Nullable, ref, StringEnum, Timestamp } from '../lib/schema.js';

export const STATS_INTERVALS = ['hour', 'day'] as const;
/** The most intervals one request may cover: 41 days by the hour, about 2.7 years by the day. */
export const MAX_INTERVALS = 1000;

const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
const Share = Type.Number({ minimum: 0, maximum: 1 });

const bucketProperties = {
  calls: Count('Calls created in the interval'),
  byOutcome: Type.Record(Type.String(), Count(), {
    description: 'Ended calls by outcome, e.g. {"SOLD": 3, "NO_ANSWER": 2}',
  }),
  results: Type.Object(
    {
      answered: Count('Someone answered (ended or still talking)'),
      noAnswer: Count(),
      busy: Count(),
      voicemail: Count(),
      failed: Count('Ended without being answered, for another reason (an error, a refusal, the duration sweep)'),
      open: Count('Not answered and not ended yet (queued, ringing)'),
    },
    { description: 'Every call is in exactly one of these' },
  ),
  conversion: Type.Record(Type.String(), Share, {
    description: 'Per outcome, its share (0 to 1) of the answered calls that have ended',
  }),
  duration: Type.Object(
    {
      averageSeconds: Nullable(Type.Number({ minimum: 0 })),
      p90Seconds: Nullable(Type.Number({ minimum: 0 }), {
        description: 'Exact below 16 s, else within 6.25 %',
      }),
    },
    { description: 'Of answered calls that have ended; null when there are none' },
  ),
  tools: Type.Object(
    {
      runs: Count('Tool runs during these calls'),
      succeeded: Count('Runs without an error'),
      failed: Count(),
      successRate: Nullable(Share),
      p50LatencyMs: Nullable(Type.Number({ minimum: 0 }), { description: 'Exact below 16 ms, else within 6.25 %' }),
      p95LatencyMs: Nullable(Type.Number({ minimum: 0 })),
    },
    { description: 'The tool invocations of these calls; rates and latencies null when there are none' },
  ),
  deliveries: Type.Object(
    { delivered: Count(), failed: Count(), pending: Count() },
    { description: 'Webhook deliveries of these calls, by state' },
  ),
};

/** The statistics of a set of calls (docs/interface.md#stats). */
export const StatsBucket = Type.Object(bucketProperties, { $id: 'StatsBucket' });
export type StatsBucket = Static<typeof StatsBucket>;

/** One interval: the statistics of the calls created in it, and when it starts. */
export const StatsInterval = Type.Object(
  {
    start: Timestamp({ description: 'The interval starts here: an hour, or midnight in `timezone`' }),
    ...bucketProperties,
  },
  { $id: 'StatsInterval' },
);
export type StatsInterval = Static<typeof StatsInterval>;

export const StatsView = Type.Object(
  {
    from: Timestamp(),
    to: Timestamp(),
    interval: StringEnum(STATS_INTERVALS),
    timezone: Type.String(),
    agentId: Nullable(Type.String()),
    intervals: Type.Array(ref(StatsInterval), {
      description: 'Every interval from the one `from` is in to the one before `to`, oldest first, empty ones too',
    }),
    totals: ref(StatsBucket, { description: 'The same for every call from `from` to `to`' }),
  },
  { $id: 'Stats' },
);
export type StatsView = Static<typeof StatsView>;

export const StatsQuery = Type.Object(
  {
    from: Type.Optional(Timestamp({ description: 'Calls created at or after (default: 7 days before `to`)' })),
    to: Type.Optional(Timestamp({ description: 'Calls created before (default: now)' })),
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    interval: Type.Optional(StringEnum(STATS_INTERVALS, { default: 'day' })),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'An IANA time zone name, e.g. Europe/Paris (default UTC): intervals begin on its hours and midnights',
      }),
    ),
  },
  { additionalProperties: false },
);
export type StatsQuery = Static<typeof StatsQuery>;

export const STATS_VIEWS = [StatsBucket, StatsInterval, StatsView];
