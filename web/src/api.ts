/** The public `/v1` API, called with the session cookie (same origin): the dashboard has no other back end. */

export interface FieldProblem {
  path: string;
  message: string;
}

/** An API refusal: `{code, message, details}` as the management API answers it. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldProblem[] = [],
  ) {
    super(message);
  }

  /** The problem reported at a field's JSON path (`$.email`), if any. */
  at(path: string): string | undefined {
    return this.details.find((d) => d.path === path)?.message;
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) {
    throw new ApiFailure(
      response.status,
      json?.code ?? 'api:internal',
      json?.message ?? response.statusText,
      json?.details,
    );
  }
  return json as T;
}

export interface Me {
  organization: { id: string; name: string };
  user: { id: string; email: string };
}

export interface Agent {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  provider: string;
  configured: boolean;
  providerSync: { state: string; error: string | null };
}
