/**
 * Publishing an agent to Retell (decision 0019): a Retell LLM with the prompt, the first
 * message and one custom tool per attached tool (pointing back to us), and an agent that uses it
 * and sends its webhooks to us. Retell has no account-wide tools: they live in the LLM.
 */
import type Retell from 'retell-sdk';
import type { PublishableAgent, PublishableTool } from '../vapi/vapi-publisher.js';

export interface RetellPublishTarget {
  client: Retell;
  /** Our base URL: tool calls go to `/providers/retell/tools/<tool id>`, events to `/providers/retell/webhook`. */
  publicUrl: string;
  /** The provider credential published with: named in every URL we give Retell (`?credential=`). */
  credentialId: string;
}

/**
 * The query parameter naming the provider credential in every URL published to Retell: Retell signs
 * with that credential's API key, so the signature can be checked on the raw bytes before they are
 * parsed (decision 0029).
 */
export const RETELL_CREDENTIAL_PARAM = 'credential';

const withCredential = (url: string, target: RetellPublishTarget) =>
  `${url}?${RETELL_CREDENTIAL_PARAM}=${encodeURIComponent(target.credentialId)}`;

/** Where Retell sends the agent's events. */
export const retellWebhookUrl = (target: RetellPublishTarget) =>
  withCredential(`${target.publicUrl}/providers/retell/webhook`, target);

/** Where Retell calls one of our tools, published as a custom tool. */
export const retellToolUrl = (target: RetellPublishTarget, toolId: string) =>
  withCredential(`${target.publicUrl}/providers/retell/tools/${toolId}`, target);

/** The voice every agent speaks with until agents choose one. */
export const RETELL_VOICE_ID = '11labs-Adrian';

function isNotFound(error: unknown): boolean {
  return (error as { status?: number } | null)?.status === 404;
}

export function retellLlmBody(agent: PublishableAgent, tools: PublishableTool[], target: RetellPublishTarget) {
  return {
    general_prompt: agent.prompt,
    begin_message: agent.firstMessage,
    general_tools: tools.map((tool) => ({
      type: 'custom' as const,
      name: tool.name,
      description: tool.description,
      url: retellToolUrl(target, tool.id),
      method: 'POST' as const,
      parameters: tool.aiSchema,
      speak_during_execution: false,
      speak_after_execution: true,
      // Retell waits this long for our answer; we answer within the tool's own timeout.
      timeout_ms: tool.timeoutMs + 2000,
    })),
  };
}

export function retellAgentBody(agent: PublishableAgent, llmId: string, target: RetellPublishTarget) {
  return {
    response_engine: { type: 'retell-llm' as const, llm_id: llmId },
    voice_id: RETELL_VOICE_ID,
    agent_name: agent.name,
    webhook_url: retellWebhookUrl(target),
    max_call_duration_ms: agent.maxCallDurationSeconds * 1000,
    // The outcome comes back in the analysis, as one of the agent's outcomes.
    post_call_analysis_data: [
      { type: 'enum' as const, name: 'status', description: 'How the call ended', choices: [...agent.outcomes] },
    ],
    metadata: { switchboardAgentId: agent.id },
  };
}

/** Creates or updates the LLM and the agent; one deleted at Retell meanwhile (404) is created again. */
export async function publishToRetell(
  agent: PublishableAgent & { providerLlmId: string | null },
  tools: PublishableTool[],
  target: RetellPublishTarget,
): Promise<{ agentId: string; llmId: string }> {
  const llm = retellLlmBody(agent, tools, target);
  let llmId: string | undefined;
  if (agent.providerLlmId) {
    try {
      llmId = (await target.client.llm.update(agent.providerLlmId, llm as never)).llm_id;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  llmId ??= (await target.client.llm.create(llm as never)).llm_id;
  const body = retellAgentBody(agent, llmId, target);
  let agentId: string | undefined;
  if (agent.providerAgentId) {
    try {
      agentId = (await target.client.agent.update(agent.providerAgentId, body as never)).agent_id;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  agentId ??= (await target.client.agent.create(body as never)).agent_id;
  return { agentId, llmId };
}

/** Removes the agent and its LLM (the agent was deleted); ones already gone are fine. */
export async function unpublishFromRetell(client: Retell, agentId: string | null, llmId: string | null): Promise<void> {
  const ignoreGone = (error: unknown) => {
    if (!isNotFound(error)) throw error;
  };
  if (agentId) await client.agent.delete(agentId).catch(ignoreGone);
  if (llmId) await client.llm.delete(llmId).catch(ignoreGone);
}
