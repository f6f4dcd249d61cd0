/**
 * When the duration sweep closes a call whose end never came (decision 0097): its agent's
 * `maxCallDurationSeconds` after it started, and, on a real provider, `reportGraceSeconds` more.
 * A provider counts its own maximum from later than we do (it dials after we ask, and the callee
 * takes a while to answer), and sends its end-of-call report after its analysis, retried when it
 * was not taken (decision 0095). A provider call that ran to its maximum therefore reports after
 * our start plus that maximum, and a sweep at that moment would close a live call, or discard the
 * report that was on its way. The simulator ends its own calls, in this process, on time.
 */
export function callDeadline(
  call: { startedAt: Date; provider: string },
  maxCallDurationSeconds: number,
  reportGraceSeconds: number,
): Date {
  const grace = call.provider === 'simulator' ? 0 : reportGraceSeconds;
  return new Date(call.startedAt.getTime() + (maxCallDurationSeconds + grace) * 1000);
}
