import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { CallView } from '../calls/calls.schemas.js';
import { logCallId } from '../calls/log-call-id.js';
import { API_ERROR_STATUS, ApiErrorBody, apiErrors } from '../errors.js';
import { ref } from '../lib/schema.js';
import { refusalToApiError } from './call-refusals.js';
import { ClickToCallResponses } from './click-to-call.schemas.js';
import type { ClickToCallService } from './click-to-call.service.js';
import { CTC_ERRORS } from './ctc-errors.js';
import { MAX_BODY_BYTES, MAX_VARIABLE_VALUE } from './request-body.js';

// Shapes only: the phone number and variables are judged by click-to-call itself (ctc:009, by field).
const TestCallBody = Type.Object(
  {
    phone: Type.String({ maxLength: 64, description: 'E.164, e.g. +14155550123' }),
    variables: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);

/**
 * `POST /v1/calls`: the shape is checked here, as on every /v1 route; what click to call judges
 * (a number it calls, the variables' names and sizes) is judged by the service at its place in the
 * order (decision 0037), so these leave the values free.
 */
const StartCallBody = Type.Object(
  {
    agentId: Type.String({ minLength: 1, maxLength: 100, description: 'An agent of type outbound or click_to_call' }),
    phone: Type.String({ maxLength: 64, description: 'The number to call, E.164', examples: ['+14155550123'] }),
    variables: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: `Fill the agent's {{name}} placeholders, as click to call's do: names 1–64 characters, not starting with "switchboard" or "system"; values at most ${MAX_VARIABLE_VALUE} characters`,
      }),
    ),
  },
  {
    additionalProperties: false,
    description: `At most ${MAX_BODY_BYTES} bytes`,
    'x-examples': {
      lead: {
        summary: 'Call Ada',
        value: { agentId: 'agt_01JD8Y6Q4T', phone: '+14155550123', variables: { name: 'Ada' } },
      },
    },
  },
);

const StartCallHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Makes a retried request (same key, same agent, same phone and variables) answer the call the first one placed for 24 h instead of placing a second: 1 to 255 characters (ctc:011 otherwise)',
      examples: ['order-1042'],
    }),
  ),
});

const API_CODES = Object.keys(API_ERROR_STATUS).map((kind) => `api:${kind}`);

/** A refusal of `POST /v1/calls`: the management API's error body, each detail with click to call's code. */
const CallRefused = (description: string, headers?: Record<string, object>) =>
  Type.Object(
    {
      code: Type.String({ enum: API_CODES }),
      message: Type.String(),
      details: Type.Array(
        Type.Object({
          path: Type.String({ examples: ['$.phone'] }),
          message: Type.String(),
          code: Type.Optional(
            Type.String({
              enum: Object.keys(CTC_ERRORS),
              description: 'The click-to-call code of the check that refused (docs/interface.md#post-v1calls)',
            }),
          ),
          callId: Type.Optional(Type.String({ description: 'ctc:008: the call, recorded as failed to start' })),
        }),
      ),
      requestId: Type.String(),
    },
    { description, ...(headers ? { headers } : {}) },
  );

/**
 * The calls placed with the organization's API key or session rather than an agent's credentials:
 * - `POST /v1/agents/:id/test-call` (added, decision 0022): a click-to-call placed from the dashboard
 *   with the session, answered exactly as `POST /api/click-to-call` answers (status and ctc body);
 * - `POST /v1/calls` (issue 17, decision 0037): a call through an outbound or click-to-call agent,
 *   through click to call's checks, answered as the management API answers.
 */
export async function testCallRoutes(
  app: FastifyInstance,
  { auth, clickToCall }: { auth: AuthService; clickToCall: ClickToCallService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  const { 200: success, 400: refused, 403: listed, 429: limited, 500: failed } = ClickToCallResponses;
  r.post(
    '/v1/agents/:id/test-call',
    {
      schema: {
        operationId: 'placeTestCall',
        summary: 'Place a test call (answered as POST /api/click-to-call answers)',
        tags: ['Agents'],
        security: SIGNED_IN,
        params: IdParams,
        body: TestCallBody,
        // Authenticated as the management API is (401, 404, 409 for an agent that is not click to
        // call, 422), then answered exactly as click to call answers.
        response: {
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
          200: success,
          400: refused,
          403: Type.Union([listed, ref(ApiErrorBody)], {
            description:
              'ctc:013 as click to call answers it (the number is on the do-not-call list), or api:forbidden',
          }),
          429: limited,
          500: Type.Union([failed, ref(ApiErrorBody)], {
            description: 'ctc:002 or ctc:008 as click to call answers them, or api:internal',
          }),
        },
      },
      // Sent as built, as click to call sends its answers (its schemas describe, decision 0026).
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (request, reply) => {
      const response = await clickToCall.testCall(organizationOf(request), request.params.id, request.body, request.id);
      logCallId(request, response.body.callId);
      if (response.headers) reply.headers(response.headers);
      // The service builds click to call's answers, whose status and body vary together; the
      // schemas above describe them, and test/openapi.test.ts checks real answers against them.
      return (reply as FastifyReply).status(response.status).send(response.body);
    },
  );

  r.post(
    '/v1/calls',
    {
      bodyLimit: MAX_BODY_BYTES,
      schema: {
        operationId: 'startCall',
        summary: 'Start a call through an outbound or click-to-call agent',
        description:
          "Authenticated by the organization's API key or session, then checked as click to call checks, in its order: the Idempotency-Key, the agent's rate limit, the agent enabled and configured, the number and the variables, the do-not-call list, a call in progress and maxConcurrentCalls, the provider. A refusal's details carry the click-to-call code of its check.",
        tags: ['Calls'],
        security: SIGNED_IN,
        headers: StartCallHeaders,
        body: StartCallBody,
        response: {
          201: ref(CallView, {
            description: 'The call, as GET /v1/calls/{id} shows it (a replay: as it is now)',
          }),
          ...apiErrors('unauthorized', 'not_found'),
          403: CallRefused(
            "The number is on the organization's do-not-call list (ctc:013), or a write from another site (api:forbidden)",
          ),
          409: CallRefused(
            'An inbound agent; the agent disabled (ctc:004) or not configured (ctc:005); a call in progress or maxConcurrentCalls (ctc:007); the first request with this Idempotency-Key still in progress (ctc:012)',
          ),
          422: CallRefused(
            'The body is not valid: its shape, the number or the variables (ctc:009); an Idempotency-Key empty, too long or used with another request (ctc:011)',
          ),
          429: CallRefused("Over the agent's rateLimitPerMinute (ctc:010)", {
            'retry-after': { type: 'string', description: 'Seconds until the agent takes calls again' },
          }),
          500: CallRefused(
            'The provider refused or failed to start the call (ctc:008, with its callId), or the server failed',
          ),
        },
      },
    },
    async (request, reply) => {
      const idempotencyKey = request.headers['idempotency-key'];
      const result = await clickToCall.startCall(organizationOf(request), request.body, idempotencyKey);
      if (!result.ok) {
        const { refusal } = result;
        logCallId(request, refusal.callId);
        if (refusal.retryAfterSeconds !== undefined) reply.header('retry-after', String(refusal.retryAfterSeconds));
        throw refusalToApiError(refusal);
      }
      logCallId(request, result.call.id);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.status(201).send(result.call);
    },
  );
}
