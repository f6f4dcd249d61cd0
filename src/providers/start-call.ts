import type { OpenedProviderCredential } from '../provider-credentials/provider-credentials.service.js';
import type { StartCallRequest } from './voice-provider.js';

/** What every real provider needs before it can place a call, or why the call cannot be placed. */
export type CallReadiness =
  | { ok: true; credential: OpenedProviderCredential; providerAgentId: string; fromNumber: string }
  | { ok: false; message: string };

/** The agent's credential, its published id at the provider and its number, each checked in turn. */
export async function readyToCall(
  agent: StartCallRequest['agent'],
  provider: string,
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>,
): Promise<CallReadiness> {
  const credential = agent.providerCredentialId
    ? await credentialOf(agent.organizationId, agent.providerCredentialId)
    : undefined;
  if (!credential) return { ok: false, message: `The agent has no ${provider} credential` };
  if (!agent.providerAgentId) {
    return { ok: false, message: `The agent is not published at ${provider} yet; see its providerSync` };
  }
  if (!agent.fromNumber) return { ok: false, message: 'The agent has no fromNumber' };
  return { ok: true, credential, providerAgentId: agent.providerAgentId, fromNumber: agent.fromNumber };
}
