/** A provider SDK's error as one line for people: status, message and the provider's own body, cut to 1,000 characters. */
export function describeProviderError(error: unknown): string {
  // Vapi's SDK says `statusCode` and `body`; Retell's says `status` and `error`.
  const e = error as { statusCode?: number; status?: number; body?: unknown; error?: unknown; message?: string };
  const status = e.statusCode ?? e.status;
  const detail = e.body ?? (e.message?.includes(JSON.stringify(e.error)) ? undefined : e.error);
  const body = detail === undefined ? '' : ` ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`;
  let message = e.message ?? String(error);
  // fetch says only "fetch failed": why (refused by the address guard, DNS, TLS) is in its causes.
  for (let cause = (error as { cause?: unknown }).cause, depth = 0; cause && depth < 3; depth++) {
    const causeMessage = (cause as { message?: unknown }).message;
    if (typeof causeMessage === 'string' && causeMessage && !message.includes(causeMessage)) {
      message = `${message}: ${causeMessage}`;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return `${status && !message.startsWith(String(status)) ? `HTTP ${status}: ` : ''}${message}${body}`.slice(0, 1000);
}
