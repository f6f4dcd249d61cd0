/** A provider SDK's error as one line for people: status, message and the provider's own body, cut to 1,000 characters. */
export function describeProviderError(error: unknown): string {
  const e = error as { statusCode?: number; body?: unknown; message?: string };
  const body = e.body === undefined ? '' : ` ${typeof e.body === 'string' ? e.body : JSON.stringify(e.body)}`;
  return `${e.statusCode ? `HTTP ${e.statusCode}: ` : ''}${e.message ?? String(error)}${body}`.slice(0, 1000);
}
