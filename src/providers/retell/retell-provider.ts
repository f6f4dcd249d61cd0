import type Retell from 'retell-sdk';
import type { OpenedProviderCredential } from '../../provider-credentials/provider-credentials.service.js';
import { describeProviderError } from '../provider-errors.js';
import { readyToCall } from '../start-call.js';
import type { StartCallRequest, StartCallResult, VoiceProvider } from '../voice-provider.js';

export interface RetellProviderDeps {
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  retellClient: (credential: OpenedProviderCredential) => Promise<Retell>;
}

/**
 * Places calls through Retell (decision 0019): `POST /v2/create-phone-call` from the agent's
 * number with the published agent, the click-to-call variables as dynamic variables (all strings,
 * as Retell wants them) and our call id in `metadata` for its webhooks.
 */
export function createRetellProvider({ credentialOf, retellClient }: RetellProviderDeps): VoiceProvider {
  return {
    name: 'retell',

    async startCall({ callId, agent, to, variables }: StartCallRequest): Promise<StartCallResult> {
      const ready = await readyToCall(agent, 'Retell', credentialOf);
      if (!ready.ok) return ready;
      try {
        const client = await retellClient(ready.credential);
        const call = await client.call.createPhoneCall({
          from_number: ready.fromNumber,
          to_number: to,
          override_agent_id: ready.providerAgentId,
          retell_llm_dynamic_variables: variables,
          metadata: { switchboardCallId: callId },
        });
        return { ok: true, providerCallId: call.call_id };
      } catch (error) {
        return { ok: false, message: `Retell refused the call: ${describeProviderError(error)}` };
      }
    },

    async close() {},
  };
}
