/**
 * Publishing an agent to Vapi (decisions 0018, 0036): one function tool per attached tool, whose
 * server is our webhook, and an assistant with the agent's definition: prompt, first message, those
 * tool ids, model, voice, transcriber language, voicemail, what it collects, and providerSettings
 * merged last. `{{variables}}` are left in the texts for Vapi to fill from
 * `assistantOverrides.variableValues`.
 */
import type { VapiClient } from '@vapi-ai/server-sdk';
import { type AgentDefinition, voicemailMessageOf } from '../../agents/agent-definition.js';
import { normalizePlaceholders } from '../../lib/template.js';
import { deepMerge } from '../published-schemas.js';
import { vapiSchemas } from './vapi-schemas.js';

/** An agent as published: its definition, our id, and its id at the provider once published. */
export interface PublishableAgent extends AgentDefinition {
  id: string;
  /** The assistant published earlier, if any. */
  providerAgentId: string | null;
}

export interface PublishableTool {
  id: string;
  name: string;
  description: string;
  /** What the model fills in: the tool's `aiSchema`. */
  aiSchema: Record<string, unknown>;
  timeoutMs: number;
}

export interface VapiPublishTarget {
  client: VapiClient;
  /** Our webhook (`<public URL>/providers/vapi/webhook`), where Vapi sends tool calls and call events. */
  serverUrl: string;
  /** Sent by Vapi as `x-vapi-secret` on every webhook, so we know it is Vapi calling. */
  webhookSecret: string | null;
}

/** The model Vapi runs the conversation with when the agent names none (what every agent had before issue 17). */
export const VAPI_DEFAULT_MODEL = { provider: 'openai', name: 'gpt-4o-mini' } as const;

/** The voicemail detection turned on when the agent says what to do on reaching voicemail. */
const VOICEMAIL_DETECTION = { provider: 'vapi' } as const;

/** What Vapi should send our webhook: tool calls, status changes, the end-of-call report. */
const SERVER_MESSAGES = ['tool-calls', 'status-update', 'end-of-call-report'] as const;

function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number } | null)?.statusCode === 404;
}

/**
 * How Vapi retries a status update or an end-of-call report our webhook did not take (decision 0095):
 * without a plan it sends each once, and a report met by a restart or a database fault would be
 * lost. Ten retries from 1 s, doubling: about 17 minutes if Vapi's doubling has no cap. (Vapi's schema
 * types `type` as an object, with these strings as its `enum`.)
 */
export const VAPI_SERVER_BACKOFF = { type: 'exponential', maxRetries: 10, baseDelaySeconds: 1 } as const;

function server(
  target: Pick<VapiPublishTarget, 'serverUrl' | 'webhookSecret'>,
  options: { timeoutSeconds?: number; backoffPlan?: typeof VAPI_SERVER_BACKOFF } = {},
) {
  return {
    url: target.serverUrl,
    ...(target.webhookSecret ? { headers: { 'x-vapi-secret': target.webhookSecret } } : {}),
    ...options,
  };
}

/** The function tool body for one of our tools. */
export function vapiToolBody(tool: PublishableTool, target: VapiPublishTarget) {
  return {
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.aiSchema },
    // Vapi waits this long for our answer; we answer within the tool's own timeout. No retries: the
    // caller is waiting, and a retry would run the customer's endpoint again (decision 0095).
    server: server(target, { timeoutSeconds: Math.min(300, Math.ceil(tool.timeoutMs / 1000) + 2) }),
  };
}

/**
 * The transcriber's language for the agent's: the tag itself when the transcriber lists it, else
 * its language alone (`es-ES` → `es`) when that is listed; otherwise the tag, which the save-time
 * check refuses at `$.language`.
 */
export function vapiTranscriberLanguage(language: string): string {
  const { languages } = vapiSchemas().transcriber;
  if (languages.includes(language)) return language;
  const base = language.split('-')[0] as string;
  return languages.includes(base) ? base : language;
}

/** The JSON Schema of one collected value, as Vapi's structured data plan takes it. */
function collectSchema(field: AgentDefinition['collect'][number]) {
  return {
    type: field.type === 'enum' ? 'string' : field.type,
    ...(field.type === 'enum' ? { enum: [...(field.choices ?? [])] } : {}),
    ...(field.description ? { description: field.description } : {}),
  };
}

/**
 * The assistant body for an agent, given its tools' Vapi ids: pure. What the agent leaves to the
 * default is published as the default where Vapi's schema has one (voicemail detection "off", no
 * voicemail message), so an update undoes an earlier choice; see decision 0036 for voice and language.
 */
export function vapiAssistantBody(
  agent: PublishableAgent,
  toolIds: string[],
  target: Pick<VapiPublishTarget, 'serverUrl' | 'webhookSecret'>,
) {
  const model = agent.model ?? VAPI_DEFAULT_MODEL;
  const required = agent.collect.filter((field) => field.required).map((field) => field.name);
  const body = {
    name: agent.name.slice(0, 40),
    firstMessage: normalizePlaceholders(agent.firstMessage),
    model: {
      provider: model.provider,
      model: model.name,
      ...(agent.model?.temperature === undefined ? {} : { temperature: agent.model.temperature }),
      messages: [{ role: 'system' as const, content: normalizePlaceholders(agent.prompt) }],
      toolIds,
    },
    ...(agent.voice ? { voice: { provider: agent.voice.provider, voiceId: agent.voice.voiceId } } : {}),
    ...(agent.language
      ? {
          transcriber: {
            provider: vapiSchemas().transcriber.provider,
            language: vapiTranscriberLanguage(agent.language),
          },
        }
      : {}),
    voicemailDetection: agent.voicemail ? VOICEMAIL_DETECTION : 'off',
    voicemailMessage: normalizePlaceholders(voicemailMessageOf(agent.voicemail)),
    server: server(target, { backoffPlan: VAPI_SERVER_BACKOFF }),
    serverMessages: [...SERVER_MESSAGES],
    maxDurationSeconds: agent.maxCallDurationSeconds,
    // The outcome and the collected data come back in the end-of-call report's structured data.
    analysisPlan: {
      structuredDataPlan: {
        enabled: true,
        schema: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: [...agent.outcomes], description: 'How the call ended' },
            ...Object.fromEntries(agent.collect.map((field) => [field.name, collectSchema(field)])),
          },
          ...(required.length > 0 ? { required } : {}),
        },
      },
    },
    metadata: { switchboardAgentId: agent.id },
  };
  // Last: the provider settings, field by field (decision 0036).
  return deepMerge(body, agent.providerSettings ?? undefined);
}

/**
 * Creates or updates the agent's tools and assistant at Vapi; returns the assistant id and each
 * tool's Vapi id. A tool or assistant deleted at Vapi meanwhile (404) is created again.
 */
export async function publishToVapi(
  agent: PublishableAgent,
  tools: PublishableTool[],
  published: Map<string, string>,
  target: VapiPublishTarget,
): Promise<{ assistantId: string; toolIds: Map<string, string> }> {
  const toolIds = new Map<string, string>();
  for (const tool of tools) {
    const body = vapiToolBody(tool, target);
    const existing = published.get(tool.id);
    let id: string | undefined;
    if (existing) {
      try {
        id = (await target.client.tools.update({ id: existing, body: body as never })).id;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    id ??= (await target.client.tools.create(body as never)).id;
    toolIds.set(tool.id, id);
  }
  const body = vapiAssistantBody(agent, [...toolIds.values()], target);
  let assistantId: string | undefined;
  if (agent.providerAgentId) {
    try {
      assistantId = (await target.client.assistants.update({ id: agent.providerAgentId, ...body } as never)).id;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  assistantId ??= (await target.client.assistants.create(body as never)).id;
  return { assistantId, toolIds };
}

/** Removes an assistant (its agent was deleted or left Vapi); one already gone is fine. */
export async function unpublishFromVapi(client: VapiClient, assistantId: string): Promise<void> {
  await client.assistants.delete({ id: assistantId }).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
}

/** Removes a function tool no agent of the account uses any more. */
export async function removeVapiTool(client: VapiClient, toolId: string): Promise<void> {
  await client.tools.delete({ id: toolId }).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
}
