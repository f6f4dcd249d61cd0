import type { FastifyRequest } from 'fastify';
import { addRequestLogFields } from '../lib/request-log.js';

/**
 * Puts a call's id on the request's remaining lines (its "request completed" line among them), so
 * every line about a call can be found by the call's id as well as by the request's. Used by the
 * routes that learn which call a request is about, once they have their answer: click-to-call, test
 * calls, simulated inbound calls and the providers' webhooks.
 */
export function logCallId(request: FastifyRequest, callId: unknown): void {
  if (typeof callId === 'string') addRequestLogFields(request, { callId });
}
