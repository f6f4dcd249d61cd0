import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { CallView } from '../calls/calls.schemas.js';
import { logCallId } from '../calls/log-call-id.js';
import { apiErrors } from '../errors.js';
import { NO_CONTENT, ref } from '../lib/schema.js';
import {
  CreatePhoneNumberBody,
  PhoneNumberListQuery,
  PhoneNumberPage,
  PhoneNumberView,
  ProviderPhoneNumberList,
  SimulateInboundBody,
  UpdatePhoneNumberBody,
} from './phone-numbers.schemas.js';
import type { PhoneNumbersService } from './phone-numbers.service.js';

const tags = ['Phone numbers'];
const security = SIGNED_IN;

export interface PhoneNumbersRoutesOptions {
  auth: AuthService;
  phoneNumbers: PhoneNumbersService;
}

/**
 * The phone-number routes (docs/interface.md#phone-numbers), in the management API's scope: the
 * numbers, the provider account's list to import from, and the simulated incoming call.
 */
export async function phoneNumbersRoutes(
  app: FastifyInstance,
  { auth, phoneNumbers }: PhoneNumbersRoutesOptions,
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.post(
    '/v1/phone-numbers',
    {
      schema: {
        operationId: 'createPhoneNumber',
        summary: 'Import a number from a provider account, optionally bound to an inbound agent',
        tags,
        security,
        body: CreatePhoneNumberBody,
        response: {
          201: ref(PhoneNumberView, { description: 'The number; a binding is published in the background' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await phoneNumbers.create(organizationOf(request), request.body)),
  );

  r.get(
    '/v1/phone-numbers',
    {
      schema: {
        operationId: 'listPhoneNumbers',
        summary: 'List phone numbers',
        tags,
        security,
        querystring: PhoneNumberListQuery,
        response: {
          200: ref(PhoneNumberPage, { description: 'A page of phone numbers, newest first' }),
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request) => phoneNumbers.list(organizationOf(request), request.query),
  );

  r.get(
    '/v1/phone-numbers/:id',
    {
      schema: {
        operationId: 'getPhoneNumber',
        summary: 'Get a phone number',
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(PhoneNumberView, { description: 'The number' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => phoneNumbers.get(organizationOf(request), request.params.id),
  );

  r.patch(
    '/v1/phone-numbers/:id',
    {
      schema: {
        operationId: 'updatePhoneNumber',
        summary: 'Bind a number to an inbound agent, rebind it, or unbind it',
        tags,
        security,
        params: IdParams,
        body: UpdatePhoneNumberBody,
        response: {
          200: ref(PhoneNumberView, {
            description: 'The number as changed; the binding is published in the background',
          }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request) => phoneNumbers.update(organizationOf(request), request.params.id, request.body),
  );

  r.delete(
    '/v1/phone-numbers/:id',
    {
      schema: {
        operationId: 'deletePhoneNumber',
        summary: 'Delete a phone number (the provider stops answering it with the agent)',
        tags,
        security,
        params: IdParams,
        response: { 204: NO_CONTENT, ...apiErrors('unauthorized', 'forbidden', 'not_found', 'validation') },
      },
    },
    async (request, reply) => {
      await phoneNumbers.remove(organizationOf(request), request.params.id);
      return reply.status(204).send();
    },
  );

  r.get(
    '/v1/provider-credentials/:id/phone-numbers',
    {
      schema: {
        operationId: 'listProviderPhoneNumbers',
        summary: "The phone numbers of the credential's provider account, to import from",
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(ProviderPhoneNumberList, { description: 'Every number of the account, with ours where imported' }),
          ...apiErrors('unauthorized', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request) => phoneNumbers.providerNumbers(organizationOf(request), request.params.id),
  );

  r.post(
    '/v1/agents/:id/simulate-inbound',
    {
      schema: {
        operationId: 'simulateInboundCall',
        summary: "Play the agent's scenario as an incoming call (the simulator)",
        tags: ['Agents'],
        security,
        params: IdParams,
        body: SimulateInboundBody,
        response: {
          201: ref(CallView, { description: 'The incoming call, as it starts; it goes on in the background' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request, reply) => {
      const call = await phoneNumbers.simulateInbound(organizationOf(request), request.params.id, request.body);
      logCallId(request, call.id);
      return reply.status(201).send(call);
    },
  );
}
