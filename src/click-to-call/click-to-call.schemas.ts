import { Type } from '@sinclair/typebox';
import { CTC_ERRORS, type CtcCode } from './ctc-errors.js';
import { MAX_BODY_BYTES } from './request-body.js';

/**
 * `POST /api/click-to-call` as the API reference shows it (docs/interface.md#click-to-call). Fastify validates none of
 * it: the contract fixes the order of the checks (the API key and the signature over the raw bytes
 * before the body), so `parseClickToCallBody` judges the body after them and answers ctc:009. These
 * schemas describe exactly that, and test/openapi.test.ts checks real answers against them.
 */

const EXAMPLE_BODY = { phone: '+14155550123', variables: { name: 'Ada' } };

export const ClickToCallBody = Type.Object(
  {
    phone: Type.String({ description: 'The number to call, E.164', examples: ['+14155550123'] }),
    variables: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.String(), {
        description:
          'Flat object of strings filling `{{name}}` placeholders; names may not start with "switchboard" or "system" (any case). Send optional variables as "".',
      }),
    ),
  },
  {
    description: `The exact bytes are signed (header \`signature\`); at most ${MAX_BODY_BYTES} bytes.`,
    'x-examples': { lead: { summary: 'A lead named Ada', value: EXAMPLE_BODY } },
  },
);

export const ClickToCallHeaders = Type.Object({
  'signature-timestamp': Type.Optional(
    Type.String({
      pattern: '^[0-9]+$',
      description:
        'Unix time in seconds. When sent, `signature` covers `timestamp + "." + body`, and a timestamp more than 300 s from the server\'s clock is ctc:006; required when the agent sets `requireSignatureTimestamp` (ctc:001 without it). Within the 300 s the same request is accepted again: send an `Idempotency-Key` so a repeat places no second call (decision 0031).',
      examples: ['1767225600'],
    }),
  ),
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      description:
        'Makes a retried request answer the first response for 24 h instead of starting a second call (decision 0003).',
      examples: ['order-1042'],
    }),
  ),
});

const FieldProblem = Type.Object({ path: Type.String(), message: Type.String() });

const ClickToCallSuccess = Type.Object(
  {
    success: Type.Literal(true),
    callId: Type.String(),
    status: Type.Literal('queued'),
    requestId: Type.String(),
  },
  {
    description: 'The call is queued; its outcome arrives by webhook and at GET /v1/calls/{id}',
    headers: {
      'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Set on a replayed answer' },
    },
    'x-examples': {
      queued: {
        summary: 'Call queued',
        value: { success: true, callId: 'call_01JD8Y6Q4T', status: 'queued', requestId: 'req_01JD8Y6Q4S' },
      },
    },
  },
);

const CODES = Object.keys(CTC_ERRORS) as CtcCode[];

const EXAMPLE_DETAILS: Partial<Record<CtcCode, { path: string; message: string }>> = {
  'ctc:006': {
    path: 'headers.signature-timestamp',
    message:
      'is 412 s in the past; at most 300 s either way is accepted: sign each request as it is sent, with a synchronised clock',
  },
  'ctc:009': {
    path: '$.phone',
    message:
      'is a premium-rate number (US); click to call refuses premium-rate, shared-cost, personal, pager and voicemail numbers (toll-fraud protection)',
  },
};

function errorResponse(status: number, description: string, headers?: Record<string, object>) {
  const codes = CODES.filter((code) => CTC_ERRORS[code].status === status);
  return Type.Object(
    {
      success: Type.Literal(false),
      code: Type.String({ enum: codes }),
      message: Type.String({ enum: codes.map((code) => CTC_ERRORS[code].message) }),
      requestId: Type.String(),
      details: Type.Optional(
        Type.Array(FieldProblem, {
          description:
            'ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header',
        }),
      ),
      callId: Type.Optional(Type.String({ description: 'ctc:008: the call recorded as failed' })),
    },
    {
      additionalProperties: false,
      description: `${description}: ${codes.map((code) => `${code} ${CTC_ERRORS[code].message}`).join('; ')}`,
      ...(headers ? { headers } : {}),
      'x-examples': Object.fromEntries(
        codes.map((code) => [
          code,
          {
            summary: `${code} — ${CTC_ERRORS[code].message}`,
            value: {
              success: false,
              code,
              message: CTC_ERRORS[code].message,
              requestId: 'req_01JD8Y6Q4S',
              ...(EXAMPLE_DETAILS[code] ? { details: [EXAMPLE_DETAILS[code]] } : {}),
            },
          },
        ]),
      ),
    },
  );
}

/** Every ctc status with the codes that answer with it: 400, 403, 409, 429, 500. */
export const ClickToCallResponses = {
  200: ClickToCallSuccess,
  400: errorResponse(400, 'A header, the agent or the body is refused'),
  403: errorResponse(403, 'Authentication failed, or the number is on the do-not-call list'),
  409: errorResponse(409, 'Idempotency-Key in use'),
  429: errorResponse(429, "Over the agent's rate limit", {
    'retry-after': { type: 'string', description: 'Seconds until a request is accepted again' },
  }),
  500: errorResponse(500, 'The server or the provider failed'),
};
