import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, apiErrors, notFound, validationError } from '../errors.js';
import { NO_CONTENT, ref } from '../lib/schema.js';
import {
  ApiKeyPage,
  CreateApiKeyBody,
  CreatedApiKeyView,
  IdParams,
  LoginBody,
  LoginView,
  MeView,
  SignupBody,
  SignupView,
} from './auth.schemas.js';
import type { AuthService } from './auth.service.js';
import { organizationOf, PUBLIC, requirePrincipal, SESSION_COOKIE, SIGNED_IN } from './authenticate.js';

const tags = ['Account'];

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

  r.post(
    '/v1/signup',
    {
      schema: {
        operationId: 'signup',
        summary: 'Create an organization, its first user and API key; starts a session',
        tags,
        security: PUBLIC,
        body: SignupBody,
        response: {
          201: ref(SignupView, { description: 'The organization, the user and the API key (shown once)' }),
          ...apiErrors('forbidden', 'conflict', 'validation', 'rate_limited'),
        },
      },
    },
    async (request, reply) => {
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
    },
  );

  r.post(
    '/v1/login',
    {
      schema: {
        operationId: 'login',
        summary: 'Log in: sets the session cookie',
        tags,
        security: PUBLIC,
        body: LoginBody,
        response: {
          200: ref(LoginView, { description: 'Signed in' }),
          ...apiErrors('unauthorized', 'forbidden', 'validation', 'rate_limited'),
        },
      },
    },
    async (request, reply) => {
      const result = await auth.login(request.body, { address: request.ip });
      if (!result.ok && result.reason === 'rate_limited') {
        reply.header('retry-after', String(result.retryAfterSeconds));
        throw new ApiError('rate_limited', 'Too many failed log-ins: try again later');
      }
      if (!result.ok) throw new ApiError('unauthorized', 'The email or password is not correct');
      setSessionCookie(request, reply, result.sessionToken);
      return { organization: result.organization, user: result.user };
    },
  );

  r.post(
    '/v1/logout',
    {
      schema: {
        operationId: 'logout',
        summary: 'Log out: ends the session',
        tags,
        security: PUBLIC,
        response: { 204: NO_CONTENT, ...apiErrors('forbidden', 'validation') },
      },
    },
    async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (token) await auth.logout(token);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.status(204).send();
    },
  );

  const authenticated = { preHandler: requirePrincipal(auth) };

  r.get(
    '/v1/me',
    {
      ...authenticated,
      schema: {
        operationId: 'getMe',
        summary: 'The signed-in user and organization',
        tags,
        security: SIGNED_IN,
        response: { 200: ref(MeView, { description: 'The organization and user' }), ...apiErrors('unauthorized') },
      },
    },
    async (request) => auth.me(request.principal!),
  );

  r.post(
    '/v1/api-keys',
    {
      ...authenticated,
      schema: {
        operationId: 'createApiKey',
        summary: 'Create an API key (shown once)',
        tags,
        security: SIGNED_IN,
        body: CreateApiKeyBody,
        response: {
          201: ref(CreatedApiKeyView, { description: 'The key' }),
          ...apiErrors('unauthorized', 'forbidden', 'validation'),
        },
      },
    },
    async (request, reply) => {
      return reply.status(201).send(await auth.createApiKey(organizationOf(request), request.body.name));
    },
  );

  r.get(
    '/v1/api-keys',
    {
      ...authenticated,
      schema: {
        operationId: 'listApiKeys',
        summary: "List the organization's API keys (masked)",
        tags,
        security: SIGNED_IN,
        response: { 200: ref(ApiKeyPage, { description: 'Every key, newest first' }), ...apiErrors('unauthorized') },
      },
    },
    async (request) => ({
      data: await auth.listApiKeys(organizationOf(request)),
      nextCursor: null,
    }),
  );

  r.delete(
    '/v1/api-keys/:id',
    {
      ...authenticated,
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        tags,
        security: SIGNED_IN,
        params: IdParams,
        response: { 204: NO_CONTENT, ...apiErrors('unauthorized', 'forbidden', 'not_found', 'validation') },
      },
    },
    async (request, reply) => {
      if (!(await auth.revokeApiKey(organizationOf(request), request.params.id))) throw notFound('API key');
      return reply.status(204).send();
    },
  );
}
