import type { VapiClient } from '@vapi-ai/server-sdk';
import { isObject, text } from '../provider-outcome.js';
import type { ProviderPhoneNumber } from '../provider-port.js';

/** The most numbers one listing asks Vapi for: the most `GET /phone-number` gives in one answer. */
export const VAPI_PHONE_NUMBER_LIMIT = 1000;

/**
 * The account's phone numbers (`GET /phone-number`), as the import list shows them. Numbers without
 * an E.164 `number` (Vapi SIP numbers, which answer at a SIP URI) are left out: a phone number of
 * ours is E.164.
 */
export async function listVapiPhoneNumbers(client: VapiClient): Promise<ProviderPhoneNumber[]> {
  const list = (await client.phoneNumbers.list({ limit: VAPI_PHONE_NUMBER_LIMIT })) as unknown[];
  return list.filter(isObject).flatMap((entry) => {
    const number = text(entry.number);
    const id = text(entry.id);
    if (!number || !id) return [];
    const name = text(entry.name);
    return [{ number, providerNumberId: id, ...(name ? { name } : {}) }];
  });
}

/**
 * Makes the number answer with the assistant (`PATCH /phone-number/{id}` with `assistantId`), or with
 * none (`assistantId: null`). Vapi's update is typed by the number's own `provider` (twilio, vapi,
 * byo-phone-number, …), read first with `GET /phone-number/{id}`. Decision 0038: null is how Vapi
 * clears the assistant, although its published file types the field as a string.
 */
export async function bindVapiPhoneNumber(
  client: VapiClient,
  providerNumberId: string,
  assistantId: string | null,
): Promise<void> {
  const current = (await client.phoneNumbers.get({ id: providerNumberId })) as unknown;
  const provider = isObject(current) ? text(current.provider) : undefined;
  if (!provider) throw new Error(`Vapi answered phone number ${providerNumberId} without its provider`);
  await client.phoneNumbers.update({ id: providerNumberId, body: { provider, assistantId } as never });
}
