/**
 * The providers this server runs, by the names stored on agents and credentials. The API's enums
 * are built from these lists; each name has its adapter in the registry (providers.module.ts).
 */
export const PROVIDER_NAMES = ['simulator', 'vapi', 'retell'] as const;

/** The providers reached with an account of the organization's (a provider credential). */
export const ACCOUNT_PROVIDER_NAMES = ['vapi', 'retell'] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];
export type AccountProviderName = (typeof ACCOUNT_PROVIDER_NAMES)[number];
