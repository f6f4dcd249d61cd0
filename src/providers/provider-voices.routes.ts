import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { ApiError, apiErrors, notFound } from '../errors.js';
import { ref } from '../lib/schema.js';
import type { OpenedProviderCredential } from '../provider-credentials/provider-credentials.service.js';
import { describeProviderError } from './provider-errors.js';
import type { RealVoiceProvider } from './provider-port.js';
import { ProviderVoiceList } from './provider-voices.schemas.js';

export interface ProviderVoicesDeps {
  auth: AuthService;
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  providerOf: (name: string) => RealVoiceProvider | undefined;
}

/** `GET /v1/provider-credentials/:id/voices`: the voices the credential's account offers (issue 17). */
export async function providerVoicesRoutes(
  app: FastifyInstance,
  { auth, credentialOf, providerOf }: ProviderVoicesDeps,
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));
  r.get(
    '/v1/provider-credentials/:id/voices',
    {
      schema: {
        operationId: 'listProviderVoices',
        summary: "The voices the credential's provider account offers",
        description:
          "Where the provider has a list endpoint, the account's voices as it answers; otherwise the voices its documentation names.",
        tags: ['Provider credentials'],
        security: SIGNED_IN,
        params: IdParams,
        response: {
          200: ref(ProviderVoiceList, { description: 'Every voice, as an agent names it' }),
          ...apiErrors('unauthorized', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request) => {
      const credential = await credentialOf(organizationOf(request), request.params.id);
      const provider = credential && providerOf(credential.provider);
      if (!credential || !provider) throw notFound('Provider credential');
      try {
        return { data: await provider.listVoices(credential) };
      } catch (error) {
        throw new ApiError('conflict', `The provider did not list its voices: ${describeProviderError(error)}`);
      }
    },
  );
}
