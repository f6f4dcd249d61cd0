/**
 * Publishing an agent to Retell (decisions 0019, 0036): a Retell LLM with the prompt, the first
 * message, the model and one custom tool per attached tool (pointing back to us), and an agent that
 * uses it, speaks with the agent's voice and language, acts on voicemail, extracts what the agent
 * collects and sends its webhooks to us; providerSettings `llm` and `agent` merged last into each.
 * Retell has no account-wide tools: they live in the LLM.
 */
import type Retell from 'retell-sdk';
import { type AgentDefinition, variablesOf } from '../../agents/agent-definition.js';
import { normalizePlaceholders } from '../../lib/template.js';
import { deepMerge } from '../published-schemas.js';
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

const withCredential = (url: string, target: Pick<RetellPublishTarget, 'publicUrl' | 'credentialId'>) =>
  `${url}?${RETELL_CREDENTIAL_PARAM}=${encodeURIComponent(target.credentialId)}`;

/** Where Retell sends the agent's events. */
export const retellWebhookUrl = (target: Pick<RetellPublishTarget, 'publicUrl' | 'credentialId'>) =>
  withCredential(`${target.publicUrl}/providers/retell/webhook`, target);

/** Where Retell calls one of our tools, published as a custom tool. */
export const retellToolUrl = (target: Pick<RetellPublishTarget, 'publicUrl' | 'credentialId'>, toolId: string) =>
  withCredential(`${target.publicUrl}/providers/retell/tools/${toolId}`, target);

/** The voice an agent that names none speaks with (what every agent had before issue 17). */
export const RETELL_VOICE_ID = '11labs-Adrian';

/** Retell's documented defaults, published when the agent leaves them, so an update undoes an earlier choice. */
export const RETELL_DEFAULT_LANGUAGE = 'en-US';
export const RETELL_DEFAULT_TEMPERATURE = 0;

/** providerSettings for Retell: `agent` merged into the agent, `llm` into its Retell LLM. */
export function retellSettingsOf(agent: Pick<AgentDefinition, 'providerSettings'>): {
  agent?: unknown;
  llm?: unknown;
} {
  const settings = agent.providerSettings ?? {};
  return { agent: settings.agent, llm: settings.llm };
}

/** The post-call analysis item of one collected value. */
function analysisItem(field: AgentDefinition['collect'][number]) {
  const common = {
    name: field.name,
    description: field.description,
    ...(field.required ? { required: true } : {}),
  };
  return field.type === 'enum'
    ? { type: 'enum' as const, ...common, choices: [...(field.choices ?? [])] }
    : { type: field.type, ...common };
}

function voicemailOption(voicemail: AgentDefinition['voicemail']) {
  if (!voicemail) return null;
  return voicemail.action === 'leave_message'
    ? { action: { type: 'static_text' as const, text: normalizePlaceholders(voicemail.message ?? '') } }
    : { action: { type: 'hangup' as const } };
}

function isNotFound(error: unknown): boolean {
  return (error as { status?: number } | null)?.status === 404;
}

/** The Retell LLM body: pure. */
export function retellLlmBody(
  agent: PublishableAgent,
  tools: PublishableTool[],
  target: Pick<RetellPublishTarget, 'publicUrl' | 'credentialId'>,
) {
  // Every variable the texts use has a default of "": a call placed without it (an incoming call)
  // says nothing there rather than the placeholder (tool results are the simulator's alone).
  const variables = variablesOf(agent).filter((name) => !name.startsWith('tool.'));
  const body = {
    general_prompt: normalizePlaceholders(agent.prompt),
    begin_message: normalizePlaceholders(agent.firstMessage),
    model: agent.model?.name ?? null,
    model_temperature: agent.model?.temperature ?? RETELL_DEFAULT_TEMPERATURE,
    default_dynamic_variables: variables.length > 0 ? Object.fromEntries(variables.map((name) => [name, ''])) : null,
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
  return deepMerge(body, retellSettingsOf(agent).llm);
}

/** The Retell agent body: pure. */
export function retellAgentBody(
  agent: PublishableAgent,
  llmId: string,
  target: Pick<RetellPublishTarget, 'publicUrl' | 'credentialId'>,
) {
  const body = {
    response_engine: { type: 'retell-llm' as const, llm_id: llmId },
    voice_id: agent.voice?.voiceId ?? RETELL_VOICE_ID,
    agent_name: agent.name,
    language: agent.language ?? RETELL_DEFAULT_LANGUAGE,
    voicemail_option: voicemailOption(agent.voicemail),
    webhook_url: retellWebhookUrl(target),
    max_call_duration_ms: agent.maxCallDurationSeconds * 1000,
    // The outcome comes back in the analysis, as one of the agent's outcomes, beside what it collects.
    post_call_analysis_data: [
      { type: 'enum' as const, name: 'status', description: 'How the call ended', choices: [...agent.outcomes] },
      ...agent.collect.map(analysisItem),
    ],
    metadata: { switchboardAgentId: agent.id },
  };
  return deepMerge(body, retellSettingsOf(agent).agent);
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
