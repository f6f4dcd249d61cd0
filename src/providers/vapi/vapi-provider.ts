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
  // Each account's numbers (number → Vapi id), read once per TTL: not a request per call.
  const numbers = new Map<string, { at: number; byNumber: Map<string, string> }>();

  async function phoneNumberId(client: VapiClient, credentialId: string, number: string): Promise<string | undefined> {
    let known = numbers.get(credentialId);
    if (!known || now() - known.at > phoneNumbersTtlMs || !known.byNumber.has(number)) {
      const list = await client.phoneNumbers.list();
      const byNumber = new Map<string, string>();
      for (const entry of list as { id: string; number?: string }[])
        if (entry.number) byNumber.set(entry.number, entry.id);
      known = { at: now(), byNumber };
      numbers.set(credentialId, known);
    }
    return known.byNumber.get(number);
  }

  return {
    name: 'vapi',

    async startCall({ callId, agent, to, variables }: StartCallRequest): Promise<StartCallResult> {
      const ready = await readyToCall(agent, 'Vapi', credentialOf);
      if (!ready.ok) return ready;
      try {
        const client = await vapiClient(ready.credential);
        const numberId = await phoneNumberId(client, ready.credential.id, ready.fromNumber);
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
