import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, notFound, validationError } from '../errors.js';
import { CreateApiKeyBody, IdParams, LoginBody, SignupBody } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';
import { organizationOf, requirePrincipal, SESSION_COOKIE } from './authenticate.js';

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: 30 * 24 * 3600,
  });
}

export async function authRoutes(app: FastifyInstance, { auth }: { auth: AuthService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/v1/signup', { schema: { body: SignupBody } }, async (request, reply) => {
    const result = await auth.signup(request.body, { address: request.ip });
    if (!result.ok) {
      if (result.reason === 'signup_closed') throw new ApiError('forbidden', 'Sign-up is closed on this server');
      if (result.reason === 'weak_password') throw validationError([{ path: '$.password', message: result.message }]);
      if (result.reason === 'rate_limited') {
        reply.header('retry-after', String(result.retryAfterSeconds));
        throw new ApiError('rate_limited', 'Too many sign-ups from this address: try again later');
      }
      throw new ApiError('conflict', 'An account with this email already exists', [
        { path: '$.email', message: 'is already registered' },
      ]);
    }
    setSessionCookie(request, reply, result.sessionToken);
    return reply.status(201).send({ organization: result.organization, user: result.user, apiKey: result.apiKey });
  });

  r.post('/v1/login', { schema: { body: LoginBody } }, async (request, reply) => {
    const result = await auth.login(request.body, { address: request.ip });
    if (!result.ok && result.reason === 'rate_limited') {
      reply.header('retry-after', String(result.retryAfterSeconds));
      throw new ApiError('rate_limited', 'Too many failed log-ins: try again later');
    }
    if (!result.ok) throw new ApiError('unauthorized', 'The email or password is not correct');
    setSessionCookie(request, reply, result.sessionToken);
    return { organization: result.organization, user: result.user };
  });

  r.post('/v1/logout', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await auth.logout(token);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.status(204).send();
  });

  const authenticated = { preHandler: requirePrincipal(auth) };

  r.get('/v1/me', authenticated, async (request) => auth.me(request.principal!));

  r.post('/v1/api-keys', { ...authenticated, schema: { body: CreateApiKeyBody } }, async (request, reply) => {
    return reply.status(201).send(await auth.createApiKey(organizationOf(request), request.body.name));
  });

  r.get('/v1/api-keys', authenticated, async (request) => ({
    data: await auth.listApiKeys(organizationOf(request)),
    nextCursor: null,
  }));

  r.delete('/v1/api-keys/:id', { ...authenticated, schema: { params: IdParams } }, async (request, reply) => {
    if (!(await auth.revokeApiKey(organizationOf(request), request.params.id))) throw notFound('API key');
    return reply.status(204).send();
  });
}
