import { type Static, Type } from '@sinclair/typebox';
import { MAX_VARIABLE_VALUE } from '../click-to-call/request-body.js';
import { Nullable, PageOf, ref, StringEnum, Timestamp } from '../lib/schema.js';
import { ACCOUNT_PROVIDER_NAMES, type AccountProviderName } from '../providers/provider-names.js';

/** The providers a phone number can be at: those with accounts (not the simulator). */
export const NUMBER_PROVIDERS = ACCOUNT_PROVIDER_NAMES;
export type NumberProvider = AccountProviderName;

/** How many live phone numbers an organization may have: far more than one team answers. */
export const MAX_PHONE_NUMBERS_PER_ORGANIZATION = 1000;

const E164_TEXT = Type.String({ minLength: 1, maxLength: 20, examples: ['+14155550100'], description: 'E.164' });
const ID = Type.String({ minLength: 1, maxLength: 100 });

/** Where binding the number to its agent at the provider stands (decision 0038). */
const PhoneNumberSync = Type.Object(
  {
    state: StringEnum(['synced', 'pending', 'failed'] as const),
    error: Nullable(Type.String(), {
      description:
        "Why the number does not answer with its agent yet: the provider's error, or what the agent lacks (not published yet, deleted, not inbound)",
    }),
    providerAgentId: Nullable(Type.String(), {
      description: "The provider's agent the number was last bound to by us (Vapi assistant, Retell agent); null: none",
    }),
  },
  { description: "Binding the number to its agent at the provider, in the background like an agent's publishing" },
);

/** A phone number as the API shows it (docs/interface.md#phone-numbers). */
export const PhoneNumberView = Type.Object(
  {
    id: Type.String({ examples: ['phn_01JD8Y6Q4S'] }),
    number: Type.String({ description: 'E.164', examples: ['+14155550100'] }),
    provider: StringEnum(NUMBER_PROVIDERS),
    providerCredentialId: Type.String(),
    providerNumberId: Type.String({ description: "The number's id at the provider (Retell: the number itself)" }),
    agentId: Nullable(Type.String(), { description: 'The inbound agent that answers the number; null: none' }),
    providerSync: PhoneNumberSync,
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'PhoneNumber' },
);
export type PhoneNumberView = Static<typeof PhoneNumberView>;

export const PhoneNumberPage = PageOf(ref(PhoneNumberView), 'PhoneNumberPage');

export const CreatePhoneNumberBody = Type.Object(
  {
    number: E164_TEXT,
    provider: Type.Optional(
      StringEnum(NUMBER_PROVIDERS, { description: "The credential's provider; when given, it must be that one" }),
    ),
    providerCredentialId: ID,
    providerNumberId: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'As GET /v1/provider-credentials/:id/phone-numbers lists it (Retell: the number itself)',
    }),
    agentId: Type.Optional(Nullable(ID, { description: 'An inbound agent on the same credential; default null' })),
  },
  { additionalProperties: false },
);
export type CreatePhoneNumberInput = Static<typeof CreatePhoneNumberBody>;

export const UpdatePhoneNumberBody = Type.Object(
  {
    agentId: Type.Optional(
      Nullable(ID, { description: 'Binds the number to this inbound agent (rebinding it), or unbinds it (null)' }),
    ),
  },
  { additionalProperties: false },
);
export type UpdatePhoneNumberInput = Static<typeof UpdatePhoneNumberBody>;

export const PhoneNumberListQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only this agent's numbers" })),
  },
  { additionalProperties: false },
);

/** The numbers of a provider account, to import from. */
export const ProviderPhoneNumberList = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        number: Type.String({ description: 'E.164' }),
        providerNumberId: Type.String(),
        name: Nullable(Type.String(), { description: 'The name the provider account gives it' }),
        phoneNumberId: Nullable(Type.String(), { description: 'Our phone number, when it is imported already' }),
      }),
    ),
  },
  { $id: 'ProviderPhoneNumberList' },
);
export type ProviderPhoneNumberList = Static<typeof ProviderPhoneNumberList>;

/** `POST /v1/agents/:id/simulate-inbound`: who calls, and the variables the call carries. */
export const SimulateInboundBody = Type.Object(
  {
    from: Type.String({ minLength: 1, maxLength: 20, description: "The caller's number, E.164" }),
    variables: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: MAX_VARIABLE_VALUE }), {
        maxProperties: 64,
        description: 'Filled into the prompt and messages as click-to-call variables are',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SimulateInboundInput = Static<typeof SimulateInboundBody>;

export const PHONE_NUMBER_VIEWS = [PhoneNumberView, PhoneNumberPage, ProviderPhoneNumberList];
