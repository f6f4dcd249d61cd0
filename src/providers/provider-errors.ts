/** A provider SDK's error as one line for people: status, message and the provider's own body, cut to 1,000 characters. */
export function describeProviderError(error: unknown): string {
  // Vapi's SDK says `statusCode` and `body`; Retell's says `status` and `error`.
  const e = error as { statusCode?: number; status?: number; body?: unknown; error?: unknown; message?: string };
  const status = e.statusCode ?? e.status;
  const detail = e.body ?? (e.message?.includes(JSON.stringify(e.error)) ? undefined : e.error);
  const body = detail === undefined ? '' : ` ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`;
  const message = e.message ?? String(error);
  return `${status && !message.startsWith(String(status)) ? `HTTP ${status}: ` : ''}${message}${body}`.slice(0, 1000);
}
