/**
 * Publishing an agent to Vapi (decision 0018): one function tool per attached tool, whose server
 * is our webhook, and an assistant with the agent's prompt, first message and those tool ids.
 * `{{variables}}` are left in the texts for Vapi to fill from `assistantOverrides.variableValues`.
 */
import type { VapiClient } from '@vapi-ai/server-sdk';

export interface PublishableAgent {
  id: string;
  name: string;
  prompt: string;
  firstMessage: string;
  outcomes: readonly string[];
  maxCallDurationSeconds: number;
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

/** The model Vapi runs the conversation with; a per-agent choice is for later. */
const MODEL = { provider: 'openai', model: 'gpt-4o-mini' } as const;

/** What Vapi should send our webhook: tool calls, status changes, the end-of-call report. */
const SERVER_MESSAGES = ['tool-calls', 'status-update', 'end-of-call-report'] as const;

function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number } | null)?.statusCode === 404;
}

function server(target: VapiPublishTarget, timeoutSeconds?: number) {
  return {
    url: target.serverUrl,
    ...(target.webhookSecret ? { headers: { 'x-vapi-secret': target.webhookSecret } } : {}),
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
  };
}

/** The function tool body for one of our tools. */
export function vapiToolBody(tool: PublishableTool, target: VapiPublishTarget) {
  return {
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.aiSchema },
    // Vapi waits this long for our answer; we answer within the tool's own timeout.
    server: server(target, Math.min(300, Math.ceil(tool.timeoutMs / 1000) + 2)),
  };
}

/** The assistant body for an agent, given its tools' Vapi ids. */
export function vapiAssistantBody(agent: PublishableAgent, toolIds: string[], target: VapiPublishTarget) {
  return {
    name: agent.name.slice(0, 40),
    firstMessage: agent.firstMessage,
    model: {
      ...MODEL,
      messages: [{ role: 'system' as const, content: agent.prompt }],
      toolIds,
    },
    server: server(target),
    serverMessages: [...SERVER_MESSAGES],
    maxDurationSeconds: agent.maxCallDurationSeconds,
    // The outcome and the collected data come back in the end-of-call report's structured data.
    analysisPlan: {
      structuredDataPlan: {
        enabled: true,
        schema: {
          type: 'object',
          properties: { status: { type: 'string', enum: [...agent.outcomes], description: 'How the call ended' } },
        },
      },
    },
    metadata: { switchboardAgentId: agent.id },
  };
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
