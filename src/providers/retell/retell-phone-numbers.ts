import type Retell from 'retell-sdk';
import type { ProviderPhoneNumber } from '../provider-port.js';

/** Numbers asked for per page, and pages at most: 10,000 numbers, far beyond an account's. */
const PAGE_SIZE = 1000;
const MAX_PAGES = 10;

/**
 * The account's phone numbers (`GET /v2/list-phone-numbers`, page by page). Retell names a number by
 * the number itself: it is both `number` and `providerNumberId`.
 */
export async function listRetellPhoneNumbers(client: Retell): Promise<ProviderPhoneNumber[]> {
  const numbers: ProviderPhoneNumber[] = [];
  let paginationKey: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await client.phoneNumber.list({
      limit: PAGE_SIZE,
      ...(paginationKey ? { pagination_key: paginationKey } : {}),
    });
    for (const item of answer.items ?? []) {
      if (!item.phone_number) continue;
      numbers.push({
        number: item.phone_number,
        providerNumberId: item.phone_number,
        ...(item.nickname ? { name: item.nickname } : {}),
      });
    }
    paginationKey = answer.pagination_key;
    if (!answer.has_more || !paginationKey) break;
  }
  return numbers;
}

/**
 * Makes the number answer incoming calls with the agent, or with none (`update-phone-number`).
 * `inbound_agent_id` is the field the issue names; Retell's newer `inbound_agents` (weighted, and
 * preferred by Retell when set) is sent alike, so either reading makes the number answer with this
 * agent alone, and null clears both (decision 0038).
 */
export async function bindRetellPhoneNumber(
  client: Retell,
  phoneNumber: string,
  agentId: string | null,
): Promise<void> {
  // The SDK no longer types the deprecated field; Retell's published file still documents it.
  const body = {
    inbound_agent_id: agentId,
    inbound_agents: agentId === null ? null : [{ agent_id: agentId, weight: 1 }],
  };
  await client.phoneNumber.update(phoneNumber, body as Retell.PhoneNumberUpdateParams);
}
