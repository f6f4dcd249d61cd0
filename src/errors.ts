import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnreachable } from './db/client.js';
import { createLogThrottle } from './lib/log-throttle.js';
import { NAME_PATTERN, ref } from './lib/schema.js';

/** The kinds of management-API error (docs/interface.md#errors-of-the-management-api), each with its one HTTP status. */
export const API_ERROR_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  validation: 422,
  rate_limited: 429,
  internal: 500,
} as const;

export type ApiErrorKind = keyof typeof API_ERROR_STATUS;

/** What each kind means, as the API reference describes its answer. */
const API_ERROR_DESCRIPTIONS: Record<ApiErrorKind, string> = {
  unauthorized: 'No valid API key or session (api:unauthorized)',
  forbidden: 'Not allowed: sign-up closed, or a write from another site (api:forbidden)',
  not_found: 'No such resource in this organization (api:not_found)',
  conflict: 'Conflicts with the current state (api:conflict)',
  validation: 'The request is not valid: details name each field (api:validation)',
  rate_limited: 'Too many requests; Retry-After says when to try again (api:rate_limited)',
  internal: 'The server failed; the log has it under requestId (api:internal)',
};

/** The body of every management-API error (docs/interface.md#errors-of-the-management-api). */
export const ApiErrorBody = Type.Object(
  {
    code: Type.String({
      enum: Object.keys(API_ERROR_STATUS).map((kind) => `api:${kind}`),
      examples: ['api:validation'],
    }),
    message: Type.String(),
    details: Type.Array(Type.Object({ path: Type.String({ examples: ['$.name'] }), message: Type.String() }), {
      description: 'For api:validation (and some conflicts), each bad field by JSON path',
    }),
    requestId: Type.String({ examples: ['req_01JD8Y6Q4S'] }),
  },
  { $id: 'ApiError' },
);

/**
 * The error answers a route declares beside its schema (`response: { 200: …, ...apiErrors('not_found') }`):
 * one per kind it can give, and api:internal, which any route can.
 */
export function apiErrors(...kinds: ApiErrorKind[]): Record<number, ReturnType<typeof ref<typeof ApiErrorBody>>> {
  return Object.fromEntries(
    [...new Set<ApiErrorKind>([...kinds, 'internal'])].map((kind) => [
      API_ERROR_STATUS[kind],
      ref(ApiErrorBody, { description: API_ERROR_DESCRIPTIONS[kind] }),
    ]),
  );
}

/** One problem with one field: `path` is a JSONPath (`$.simulator.turns[0].role`). */
export interface FieldProblem {
  path: string;
  message: string;
}

/** An expected failure of a management-API request, answered as `{code:"api:<kind>", message, details}`. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly details: FieldProblem[] = [],
  ) {
    super(message);
  }
  get status(): number {
    return API_ERROR_STATUS[this.kind];
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);
export const validationError = (details: FieldProblem[], message = 'The request is not valid') =>
  new ApiError('validation', message, details);

/** `/a/0/b` (JSON Pointer, as Ajv reports) → `$.a[0].b`. */
export function pointerToJsonPath(pointer: string): string {
  if (pointer === '') return '$';
  return `$${pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) =>
      /^\d+$/.test(part) ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`,
    )
    .join('')}`;
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Ajv's errors as field problems, one per field, naming the field itself (not its parent). */
export function problemsFromAjv(errors: readonly AjvError[], root = '$'): FieldProblem[] {
  const problems = new Map<string, string>();
  for (const error of errors) {
    let path = pointerToJsonPath(error.instancePath);
    let message = error.message ?? 'is not valid';
    if (error.keyword === 'required') {
      path = `${path}.${String(error.params.missingProperty)}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      path = `${path}.${String(error.params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (error.keyword === 'const') {
      message = `must be ${JSON.stringify(error.params.allowedValue)}`;
    } else if (error.keyword === 'pattern' && error.params.pattern === NAME_PATTERN) {
      message = 'must contain a character other than spaces';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    if (root !== '$') path = path.replace(/^\$\.?/, `${root}.`).replace(/\.$/, '');
    // anyOf/oneOf produce one error per branch; the first message per field is the useful one.
    if (!problems.has(path) && error.keyword !== 'anyOf' && error.keyword !== 'oneOf') problems.set(path, message);
  }
  if (problems.size === 0 && errors.length > 0)
    problems.set(pointerToJsonPath(errors[0]?.instancePath ?? ''), 'is not valid');
  return [...problems].map(([path, message]) => ({ path, message }));
}

function send(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  return reply.status(error.status).send({
    code: `api:${error.kind}`,
    message: error.message,
    details: error.details,
    requestId: request.id,
  });
}

/** Maps whatever a route threw to the contract's error body; 5xx messages are never shown. */
export function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fastifyError.validation) {
    const context = fastifyError.validationContext;
    const root = context === 'querystring' ? 'query' : context && context !== 'body' ? context : '$';
    return validationError(problemsFromAjv(fastifyError.validation, root));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError([{ path: '$', message: 'The body is not valid JSON' }]);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return validationError([{ path: '$', message: 'Send the body as application/json' }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return validationError([{ path: '$', message: 'The body is too large' }]);
  }
  if (fastifyError.statusCode === 400 && error instanceof SyntaxError) {
    return validationError([{ path: '$', message: 'The body is not valid JSON' }]);
  }
  if (fastifyError.statusCode === 404) return new ApiError('not_found', 'Not found');
  if (fastifyError.statusCode === 429) return new ApiError('rate_limited', 'Too many requests');
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return validationError([{ path: '$', message: error.message }]);
  }
  return new ApiError('internal', 'Internal error');
}

/** The one error handler of the management API. */
export function registerApiErrorHandler(app: FastifyInstance): void {
  // The database away or its pool saturated fails every request alike: logged once per 10 s with
  // the count left out, not a stack per request (decision 0029).
  const logDatabaseFailure = createLogThrottle();
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500 && isDatabaseUnreachable(error)) {
      logDatabaseFailure('request', (suppressed) =>
        request.log.error(
          { err: error, suppressed },
          'request failed: the database is unreachable or saturated (logged once per 10 s)',
        ),
      );
    } else if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return send(reply, request, apiError);
  });
  app.setNotFoundHandler((request, reply) => send(reply, request, new ApiError('not_found', 'Not found')));
}
