import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnreachable } from './db/client.js';
import { createLogThrottle } from './lib/log-throttle.js';
import { requestLogFields } from './lib/request-log.js';
import { patternSentence, ref } from './lib/schema.js';

/** The kinds of management-API error (docs/interface.md#errors-of-the-management-api), each with its one HTTP status. */
export const API_ERROR_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  validation: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
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
  unavailable: 'Not answerable yet; the message says why and Retry-After when to ask again (api:unavailable)',
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
    /** Sent as `Retry-After`: seconds until the same request may be answered. */
    readonly retryAfterSeconds?: number,
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

/** How many problems one answer lists, and how long one message may be (a hostile body must not make a huge answer). */
export const MAX_DETAILS = 50;
export const MAX_MESSAGE_LENGTH = 200;

const count = (n: unknown, one: string, many = `${one}s`) => `${String(n)} ${n === 1 ? one : many}`;

/** What a JSON Schema type is called in a sentence. */
const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

/** What a `format` asks for, said with an example. */
const FORMAT_SENTENCES: Record<string, string> = {
  'date-time': 'Must be a date and time in ISO 8601, e.g. 2026-01-31T09:00:00Z',
  date: 'Must be a date in ISO 8601, e.g. 2026-01-31',
  email: 'Must be an email address, e.g. ana@example.com',
  uri: 'Must be a URL, e.g. https://example.com/path',
  url: 'Must be a URL, e.g. https://example.com/path',
  uuid: 'Must be a UUID',
};

const listed = (values: readonly unknown[], max = 12) =>
  values
    .slice(0, max)
    .map((value) => JSON.stringify(value))
    .join(', ') + (values.length > max ? `, … (${values.length} in all)` : '');

/**
 * One of Ajv's errors as a person reads it (issue 18): what the field takes, not the validator's
 * words — "At least 8 characters", not `must NOT have fewer than 8 characters`. A pattern is said
 * by the sentence src/lib/schema.ts keeps for it. The wordings older than these ("is required",
 * "is not a known field", "must be one of …") stay as they were: clients match on them.
 */
export function plainMessage(error: AjvError): string {
  const params = error.params;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'enum':
      return `must be one of ${listed(params.allowedValues as unknown[])}`;
    case 'type': {
      if (error.instancePath === '' && params.type === 'object') return 'The body must be a JSON object';
      const types = String(params.type).split(',');
      return `Must be ${types.map((type) => TYPE_NAMES[type] ?? type).join(' or ')}`;
    }
    case 'minLength':
      return params.limit === 1 ? 'Must not be empty' : `At least ${count(params.limit, 'character')}`;
    case 'maxLength':
      return `At most ${count(params.limit, 'character')}`;
    case 'minimum':
      return `At least ${String(params.limit)}`;
    case 'maximum':
      return `At most ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `More than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `Less than ${String(params.limit)}`;
    case 'multipleOf':
      return `Must be a multiple of ${String(params.multipleOf)}`;
    case 'minItems':
      return params.limit === 1 ? 'List at least one' : `List at least ${String(params.limit)}`;
    case 'maxItems':
      return `List at most ${String(params.limit)}`;
    case 'uniqueItems': {
      // The indices as the paths write them: [0] is the first.
      const [first, second] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      return `Each item must be different: [${first}] and [${second}] are the same`;
    }
    case 'minProperties':
      return `At least ${count(params.limit, 'field')}`;
    case 'maxProperties':
      return `At most ${count(params.limit, 'field')}`;
    case 'pattern':
      return patternSentence(String(params.pattern));
    case 'format':
      return FORMAT_SENTENCES[String(params.format)] ?? `Must be a valid ${String(params.format)}`;
    default:
      return 'Is not valid here';
  }
}

/** Ajv's errors as field problems, one per field, naming the field itself (not its parent). */
export function problemsFromAjv(errors: readonly AjvError[], root = '$'): FieldProblem[] {
  const problems = new Map<string, string>();
  // The types a union allows, per field: a value that fits none is told all of them ("text or null").
  const types = new Map<string, string[]>();
  for (const error of errors) {
    let path = pointerToJsonPath(error.instancePath);
    if (error.keyword === 'required') path = `${path}.${String(error.params.missingProperty)}`;
    else if (error.keyword === 'additionalProperties') path = `${path}.${String(error.params.additionalProperty)}`;
    if (root !== '$') path = path.replace(/^\$\.?/, `${root}.`).replace(/\.$/, '');
    // anyOf/oneOf produce one error per branch; the first message per field is the useful one.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    if (error.keyword === 'type' && (types.has(path) || !problems.has(path))) {
      const allowed = [...(types.get(path) ?? []), String(error.params.type)];
      types.set(path, allowed);
      problems.set(path, plainMessage({ ...error, params: { type: allowed.join(',') } }));
      continue;
    }
    if (!problems.has(path)) problems.set(path, plainMessage(error));
  }
  if (problems.size === 0 && errors.length > 0)
    problems.set(pointerToJsonPath(errors[0]?.instancePath ?? ''), 'Is not valid here');
  return [...problems].map(([path, message]) => ({ path, message }));
}

/**
 * A message cut to `MAX_MESSAGE_LENGTH` characters; a closing parenthesis that says where the
 * problem lies (`(Vapi: model.model)`) is kept, the text before it cut instead.
 */
function cut(message: string): string {
  if (message.length <= MAX_MESSAGE_LENGTH) return message;
  const where = / (\([^()]{1,80}\))$/.exec(message)?.[1] ?? '';
  const head = MAX_MESSAGE_LENGTH - 1 - (where ? where.length + 1 : 0);
  return `${message.slice(0, head)}…${where ? ` ${where}` : ''}`;
}

/**
 * At most `MAX_DETAILS` problems, each said once and at most `MAX_MESSAGE_LENGTH` characters long:
 * a body with 10,000 bad items is answered in a few kilobytes, saying how many were left out.
 */
export function boundedDetails(details: readonly FieldProblem[]): { details: FieldProblem[]; leftOut: number } {
  const seen = new Set<string>();
  const unique: FieldProblem[] = [];
  for (const problem of details) {
    const { path, message } = problem;
    // Other fields of a problem (a click-to-call refusal's `code`) are kept as they are.
    const bounded = {
      ...problem,
      path: path.length > MAX_MESSAGE_LENGTH ? `${path.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : path,
      message: cut(message),
    };
    const key = `${bounded.path}\u0000${bounded.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(bounded);
  }
  return { details: unique.slice(0, MAX_DETAILS), leftOut: Math.max(0, unique.length - MAX_DETAILS) };
}

/** The top-level field a problem is about: `$.parameters[2].name` → `parameters`; the body itself → `$`. */
export function topFieldOf(path: string): string {
  const match = /^\$(?:\.([A-Za-z_$][\w$]*)|\[("(?:[^"\\]|\\.)*")\])/.exec(path);
  if (!match) return '$';
  return match[1] ?? (JSON.parse(match[2] as string) as string);
}

/**
 * Schema problems and a service's own, said together in one answer (issue 18: every problem of a
 * form at once). The schema refused some top-level fields; the service judged stand-ins for them
 * (the stored value, or the default), so what it says about a refused field is left out: the
 * schema's problem is the one to fix first. `dependents` names own problems that compare one field
 * with another (`$.simulator.outcome.status` against `outcomes`): those are left out too when the
 * field they compare with was refused.
 */
export function besideSchema(
  schemaProblems: readonly FieldProblem[],
  own: readonly FieldProblem[],
  dependents: Readonly<Record<string, readonly string[]>> = {},
): FieldProblem[] {
  const refused = new Set(schemaProblems.map((problem) => topFieldOf(problem.path)));
  // A body that is not an object at all has only stand-ins: nothing of the service's is said.
  if (refused.has('$')) return [...schemaProblems];
  const judgedOnStandIns = (path: string) =>
    Object.entries(dependents).some(
      ([prefix, fields]) =>
        (path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`)) &&
        fields.some((field) => refused.has(field)),
    );
  return [
    ...schemaProblems,
    ...own.filter((problem) => !refused.has(topFieldOf(problem.path)) && !judgedOnStandIns(problem.path)),
  ];
}

/**
 * A body as a service may read it: all of it when its schema passed it; else only the top-level
 * fields the schema found nothing wrong with (each then of its declared type), for the service to
 * run its own rules on beside the schema's problems, with stand-ins for the rest; nothing when the
 * body is not an object at all.
 */
export function soundPart<T extends object>(body: T, schemaProblems: readonly FieldProblem[]): Partial<T> {
  if (schemaProblems.length === 0) return body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const refused = new Set(schemaProblems.map((problem) => topFieldOf(problem.path)));
  if (refused.has('$')) return {};
  return Object.fromEntries(Object.entries(body).filter(([field]) => !refused.has(field))) as Partial<T>;
}

/**
 * The schema's problems with a request's body, for a route declared with `attachValidation: true`
 * whose service says them together with its own (`besideSchema`). A request whose path or query
 * is not valid is refused here, as any route refuses it.
 */
export function schemaProblemsOf(request: FastifyRequest): FieldProblem[] {
  const error = request.validationError as (Error & { validationContext?: string }) | undefined;
  if (!error) return [];
  const refusal = toApiError(error);
  if (error.validationContext !== 'body') throw refusal;
  return refusal.details;
}

function send(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  const { details, leftOut } = boundedDetails(error.details);
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.status(error.status).send({
    code: `api:${error.kind}`,
    message:
      leftOut > 0
        ? `${error.message} (${details.length} of ${details.length + leftOut} problems listed)`
        : error.message,
    details,
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
    // An api:unavailable is thrown on purpose with its reason; the request's own line records it.
    if (apiError.kind === 'internal' && isDatabaseUnreachable(error)) {
      logDatabaseFailure('request', (suppressed) =>
        request.log.error(
          { err: error, suppressed, ...requestLogFields(request) },
          'request failed: the database is unreachable or saturated (logged once per 10 s)',
        ),
      );
    } else if (apiError.kind === 'internal')
      request.log.error({ err: error, ...requestLogFields(request) }, 'request failed');
    return send(reply, request, apiError);
  });
  app.setNotFoundHandler((request, reply) => send(reply, request, new ApiError('not_found', 'Not found')));
}
