import { type Static, Type } from '@sinclair/typebox';
import { HEADER_VALUE_PATTERN, Name, Nullable, PageOf, ref, StringEnum, Timestamp } from '../lib/schema.js';
import { ACCOUNT_PROVIDER_NAMES } from '../providers/provider-names.js';

export const CREDENTIAL_PROVIDERS = ACCOUNT_PROVIDER_NAMES;
export type CredentialProvider = (typeof CREDENTIAL_PROVIDERS)[number];

const secret = (description: string) =>
  Type.String({ minLength: 1, maxLength: 4096, pattern: HEADER_VALUE_PATTERN, description });

const name = Name();
const apiKey = secret(
  "The provider's private API key. Write-only: read back masked; the mask written back keeps it, unless the base URL moves to another origin, where it must be given again.",
);
const webhookSecret = Type.Union([
  secret(
    'What the provider signs or authenticates its webhooks with. Write-only: read back masked; the mask written back keeps it, unless the base URL moves to another origin, where it must be given again (null makes a new one for Vapi).',
  ),
  Type.Null(),
]);
const baseUrl = Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()], {
  description: "The provider's API base URL; null for its public one.",
});

export const CreateProviderCredentialBody = Type.Object(
  {
    provider: StringEnum(CREDENTIAL_PROVIDERS),
    name,
    apiKey,
    webhookSecret: Type.Optional(webhookSecret),
    baseUrl: Type.Optional(baseUrl),
  },
  { additionalProperties: false },
);
export type CreateProviderCredentialInput = Static<typeof CreateProviderCredentialBody>;

const previousWebhookSecretExpiresAt = Type.Null({
  description:
    'null revokes the webhook secret replaced by the last change, which otherwise opens webhooks for 24 hours after it (with a new webhookSecret in the same request, the one it replaces is not kept)',
});

/** The provider is fixed: agents using a credential rely on it; make a new credential instead. */
export const UpdateProviderCredentialBody = Type.Partial(
  Type.Object(
    { name, apiKey, webhookSecret, previousWebhookSecretExpiresAt, baseUrl },
    { additionalProperties: false },
  ),
  { additionalProperties: false },
);
export type UpdateProviderCredentialInput = Static<typeof UpdateProviderCredentialBody>;

/** A provider credential as the API shows it: its secrets masked (decision 0028). */
export const ProviderCredentialView = Type.Object(
  {
    id: Type.String(),
    provider: StringEnum(CREDENTIAL_PROVIDERS),
    name: Type.String(),
    apiKey: Type.String({ description: 'Always the mask ••••••' }),
    apiKeyLast4: Type.String({ description: "The API key's last four characters, to recognise it" }),
    webhookSecret: Nullable(Type.String(), { description: 'The mask ••••••, or null when there is none' }),
    previousWebhookSecretExpiresAt: Nullable(Timestamp(), {
      description:
        'Until when the webhook secret replaced by the last change still opens webhooks (24 hours after the change, for the calls under way); null when none does',
    }),
    baseUrl: Nullable(Type.String()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'ProviderCredential' },
);
export type ProviderCredentialView = Static<typeof ProviderCredentialView>;

export const ProviderCredentialPage = PageOf(ref(ProviderCredentialView), 'ProviderCredentialPage');

export const PROVIDER_CREDENTIAL_VIEWS = [ProviderCredentialView, ProviderCredentialPage];
