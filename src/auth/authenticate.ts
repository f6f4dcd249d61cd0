import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Principal } from './auth.repository.js';
import type { AuthService } from './auth.service.js';

export const SESSION_COOKIE = 'switchboard_session';

/**
 * The security of a route behind `requirePrincipal`, as the API reference states it: an API key, or
 * the dashboard's session (the schemes are defined in src/openapi.ts).
 */
export const SIGNED_IN: Record<string, string[]>[] = [{ bearerApiKey: [] }, { sessionCookie: [] }];
/** The security of a route anyone may call: none. */
export const PUBLIC: [] = [];

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/**
 * The key of `Authorization: Bearer <key>`; `''` for an `Authorization` header of any other form
 * (`Basic …`, which a browser may attach by itself), which authenticates nothing; `undefined`
 * without the header.
 */
export function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/**
 * A preHandler that admits a request with an API key or a session, and refuses it otherwise. With
 * an `Authorization` header the session cookie is never used: only a valid Bearer key admits the
 * request (decision 0030), so a header the browser added cannot carry its cookie past the
 * cross-site check.
 */
export function requirePrincipal(auth: AuthService) {
  return async (request: FastifyRequest): Promise<void> => {
    const bearer = bearerOf(request);
    const sessionToken = bearer === undefined ? request.cookies[SESSION_COOKIE] : undefined;
    const principal = await auth.authenticate({ bearer, sessionToken });
    if (!principal) {
      throw new ApiError(
        'unauthorized',
        bearer === ''
          ? 'The Authorization header must be "Bearer <key>" (beside it, the session cookie is not used)'
          : bearer !== undefined || sessionToken
            ? 'The API key or session is not valid'
            : 'Send an API key as "Authorization: Bearer <key>" or log in',
      );
    }
    request.principal = principal;
  };
}

/** The caller's organization; only for routes behind `requirePrincipal`. */
export function organizationOf(request: FastifyRequest): string {
  if (!request.principal) throw new Error('route is missing requirePrincipal');
  return request.principal.organizationId;
}
