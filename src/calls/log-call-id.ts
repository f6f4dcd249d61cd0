import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Puts a call's id on the request's remaining log lines (its "request completed" line among them),
 * so every line about a call can be found by the call's id as well as by the request's. Used by the
 * routes that learn which call a request is about: click-to-call and the providers' webhooks.
 */
export function logCallId(request: FastifyRequest, reply: FastifyReply, callId: unknown): void {
  if (typeof callId !== 'string') return;
  request.log = request.log.child({ callId });
  // Fastify writes "request completed" with the reply's logger, a reference of its own.
  reply.log = request.log;
}
