import { createHash } from 'node:crypto';
import type { VapiClient } from '@vapi-ai/server-sdk';
import type { OpenedProviderCredential } from '../../provider-credentials/provider-credentials.service.js';
import { describeProviderError } from '../provider-errors.js';
import { readyToCall } from '../start-call.js';
import type { StartCallRequest, StartCallResult, VoiceProvider } from '../voice-provider.js';

export interface VapiProviderDeps {
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  vapiClient: (credential: OpenedProviderCredential) => Promise<VapiClient>;
  /** `POST /call` (vapi-create-call.ts): the call request itself, without the SDK. */
  createCall: (credential: OpenedProviderCredential, body: Record<string, unknown>) => Promise<{ id?: string }>;
  /** How long the account's phone numbers are remembered, default 5 minutes. */
  phoneNumbersTtlMs?: number;
  now?: () => number;
}

/** Accounts whose numbers are kept at most. */
const MAX_ACCOUNTS = 10_000;

/**
 * What the numbers read are kept under: the credential, its base URL and its key, hashed (a
 * credential given another key may reach another account; no key is kept in the clear).
 */
const accountOf = (credential: OpenedProviderCredential): string =>
  createHash('sha256')
    .update(`${credential.id}\n${credential.baseUrl ?? ''}\n${credential.apiKey}`)
    .digest('base64url');

/**
 * Places calls through Vapi (decision 0018): `POST /call` with the published assistant, the
 * account's phone number for the agent's `fromNumber`, the callee, the click-to-call variables for
 * Vapi to fill `{{…}}` with, and our call id in `assistantOverrides.metadata` for its webhooks.
 */
export function createVapiProvider({
  credentialOf,
  vapiClient,
  createCall,
  phoneNumbersTtlMs = 5 * 60_000,
  now = Date.now,
}: VapiProviderDeps): VoiceProvider {
  // Each account's numbers (number → Vapi id), so a call is one request to Vapi, not two. Past the
  // TTL a number still known is used at once and the list is read again in the background: a call
  // never waits for Vapi's list of numbers except the first for its number (decision 0093).
  const numbers = new Map<string, { at: number; byNumber: Map<string, string> }>();
  // One read per account at a time, however many calls want it.
  const reading = new Map<string, Promise<Map<string, string>>>();

  function readNumbers(client: VapiClient, account: string): Promise<Map<string, string>> {
    const pending = reading.get(account);
    if (pending) return pending;
    const read = client.phoneNumbers
      .list()
      .then((list) => {
        const byNumber = new Map<string, string>();
        for (const entry of list as { id: string; number?: string }[])
          if (entry.number) byNumber.set(entry.number, entry.id);
        numbers.delete(account);
        numbers.set(account, { at: now(), byNumber });
        // The least recently read go first: a key changed again and again leaves no trail.
        if (numbers.size > MAX_ACCOUNTS) numbers.delete(numbers.keys().next().value as string);
        return byNumber;
      })
      .finally(() => reading.delete(account));
    reading.set(account, read);
    return read;
  }

  async function phoneNumberId(
    client: VapiClient,
    credential: OpenedProviderCredential,
    number: string,
  ): Promise<string | undefined> {
    const account = accountOf(credential);
    const known = numbers.get(account);
    const id = known?.byNumber.get(number);
    if (!known || id === undefined) return (await readNumbers(client, account)).get(number);
    // A failed read in the background leaves the list as it was; the next call past the TTL tries again.
    if (now() - known.at > phoneNumbersTtlMs) readNumbers(client, account).catch(() => {});
    return id;
  }

  return {
    name: 'vapi',

    async startCall({ callId, agent, to, variables }: StartCallRequest): Promise<StartCallResult> {
      const ready = await readyToCall(agent, 'Vapi', credentialOf);
      if (!ready.ok) return ready;
      try {
        const client = await vapiClient(ready.credential);
        const numberId = await phoneNumberId(client, ready.credential, ready.fromNumber);
        if (!numberId) return { ok: false, message: `The Vapi account has no phone number ${ready.fromNumber}` };
        const call = await createCall(ready.credential, {
          assistantId: ready.providerAgentId,
          phoneNumberId: numberId,
          customer: { number: to },
          assistantOverrides: { variableValues: variables, metadata: { switchboardCallId: callId } },
        });
        const id = call.id;
        return id ? { ok: true, providerCallId: id } : { ok: false, message: 'Vapi answered without a call id' };
      } catch (error) {
        return { ok: false, message: `Vapi refused the call: ${describeProviderError(error)}` };
      }
    },

    async close() {},
  };
}
