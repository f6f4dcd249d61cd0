import { type SQL, sql } from 'drizzle-orm';

/**
 * How a call that was not answered ended, in the words each provider uses for it (decision 0017):
 * the simulator's own reasons, Vapi's `endedReason` (src/providers/vapi/vapi-mapper.ts) and
 * Retell's `disconnection_reason` (src/providers/retell/retell-mapper.ts). A call keeps the
 * provider's own reason; this is the one list the statistics read it through
 * (test/stats.test.ts checks each reason against the provider's mapper).
 */
export const UNANSWERED_REASONS = {
  noAnswer: ['no_answer', 'customer-did-not-answer', 'call.forwarding.no-answer', 'dial_no_answer', 'user_declined'],
  busy: ['busy', 'customer-busy', 'call.forwarding.operator-busy', 'dial_busy'],
  voicemail: ['voicemail', 'voicemail_reached'],
} as const;

/** The outcome the providers' mappers give an unanswered call of each kind (src/providers/provider-outcome.ts). */
export const UNANSWERED_OUTCOMES = { noAnswer: 'NO_ANSWER', busy: 'BUSY', voicemail: 'VOICEMAIL' } as const;

/** Every call is in exactly one of these (docs/interface.md#stats). */
export const CALL_RESULTS = ['answered', 'noAnswer', 'busy', 'voicemail', 'failed', 'open'] as const;
export type CallResult = (typeof CALL_RESULTS)[number];

const list = (values: readonly string[]) =>
  sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  );

/**
 * A call's result, as SQL over the row aliased `c`. An ended call whose reason says no answer, busy
 * or voicemail is that, even when a machine picked up first (a voicemail box "answers"); an
 * unanswered call whose outcome is one of those words (Retell's analysis saying voicemail) too.
 * Otherwise a call someone answered is answered (ended or still talking), an ended one failed, and
 * one still dialling or ringing is open.
 */
export function callResultSql(): SQL {
  const kind = (name: keyof typeof UNANSWERED_REASONS) =>
    sql`c.status = 'ended' and (c.ended_reason in (${list(UNANSWERED_REASONS[name])})
      or (c.answered_at is null and c.outcome = ${UNANSWERED_OUTCOMES[name]}))`;
  return sql`case
    when ${kind('noAnswer')} then 'noAnswer'
    when ${kind('busy')} then 'busy'
    when ${kind('voicemail')} then 'voicemail'
    when c.answered_at is not null then 'answered'
    when c.status = 'ended' then 'failed'
    else 'open' end`;
}
