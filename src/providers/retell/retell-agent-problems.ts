/**
 * What Retell would refuse of an agent, found when the agent is saved rather than when it is
 * published (decision 0036): the LLM and agent bodies we would publish, providerSettings `llm` and
 * `agent` merged, checked against Retell's create-retell-llm and create-agent request schemas; each
 * refusal named by our field where there is one.
 */
import { type AgentDefinition, jsonPath } from '../../agents/agent-definition.js';
import type { FieldProblem } from '../../errors.js';
import { bodyProblems, type ReservedField, reservedProblems } from '../published-schemas.js';
import { retellAgentBody, retellLlmBody, retellSettingsOf } from './retell-publisher.js';
import { retellValidator } from './retell-schemas.js';

/** What providerSettings may not set in the agent: a field of ours sets it, or we do. */
const AGENT_RESERVED: ReservedField[] = [
  { path: ['agent_name'], setBy: '$.name' },
  { path: ['voice_id'], setBy: '$.voice.voiceId' },
  { path: ['language'], setBy: '$.language' },
  { path: ['voicemail_option'], setBy: '$.voicemail' },
  { path: ['max_call_duration_ms'], setBy: '$.maxCallDurationSeconds' },
  { path: ['post_call_analysis_data'], setBy: '$.collect' },
  { path: ['response_engine'], setBy: null },
  { path: ['webhook_url'], setBy: null },
  { path: ['metadata'], setBy: null },
];

/** What providerSettings may not set in the LLM. */
const LLM_RESERVED: ReservedField[] = [
  { path: ['general_prompt'], setBy: '$.prompt' },
  { path: ['begin_message'], setBy: '$.firstMessage' },
  { path: ['model'], setBy: '$.model.name' },
  { path: ['model_temperature'], setBy: '$.model.temperature' },
  { path: ['general_tools'], setBy: '$.toolIds' },
];

function agentField(parts: string[], agent: AgentDefinition): string | undefined {
  const [top, index, field] = parts;
  switch (top) {
    case 'agent_name':
      return '$.name';
    case 'voice_id':
      return '$.voice.voiceId';
    case 'language':
      return '$.language';
    case 'voicemail_option':
      return parts.includes('text') ? '$.voicemail.message' : '$.voicemail';
    case 'max_call_duration_ms':
      return '$.maxCallDurationSeconds';
    case 'post_call_analysis_data': {
      // Item 0 is the outcome; the collected values follow in order.
      const at = Number(index);
      if (index === undefined || !Number.isInteger(at)) return '$.collect';
      if (at === 0) return '$.outcomes';
      if (at - 1 >= agent.collect.length) return '$.collect';
      return field === 'name' || field === 'choices' || field === 'description'
        ? `$.collect[${at - 1}].${field}`
        : `$.collect[${at - 1}]`;
    }
    default:
      return undefined;
  }
}

function llmField(parts: string[]): string | undefined {
  switch (parts[0]) {
    case 'general_prompt':
      return '$.prompt';
    case 'begin_message':
      return '$.firstMessage';
    case 'model':
      return '$.model.name';
    case 'model_temperature':
      return '$.model.temperature';
    case 'general_tools':
      return '$.toolIds';
    default:
      return undefined;
  }
}

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Retell's settings go under `agent` and `llm`, each an object. */
function shapeProblems(settings: Record<string, unknown> | null): FieldProblem[] {
  if (!settings) return [];
  return Object.entries(settings).flatMap(([key, value]): FieldProblem[] => {
    const path = jsonPath([key], '$.providerSettings');
    if (key !== 'agent' && key !== 'llm')
      return [{ path, message: 'Retell settings go under "agent" (the agent) or "llm" (its Retell LLM)' }];
    return isObject(value) ? [] : [{ path, message: 'must be an object of Retell fields' }];
  });
}

/** Where the check publishes to: only the shape matters. */
const CHECK_TARGET = { publicUrl: 'https://switchboard.invalid', credentialId: 'pcr_checking' };

export function retellAgentProblems(agent: AgentDefinition): FieldProblem[] {
  const shape = shapeProblems(agent.providerSettings);
  if (shape.length > 0) return shape;
  const settings = retellSettingsOf(agent);
  const reserved = [
    ...reservedProblems(settings.agent as Record<string, unknown>, AGENT_RESERVED, '$.providerSettings.agent'),
    ...reservedProblems(settings.llm as Record<string, unknown>, LLM_RESERVED, '$.providerSettings.llm'),
  ];
  if (reserved.length > 0) return reserved;
  const problems: FieldProblem[] = [];
  // Retell documents the temperature as 0 to 1 without its schema saying so.
  if ((agent.model?.temperature ?? 0) > 1)
    problems.push({ path: '$.model.temperature', message: 'must be at most 1 on Retell (its model_temperature)' });
  const publishable = { ...agent, id: 'agt_checking', providerAgentId: null };
  problems.push(
    ...bodyProblems({
      provider: 'Retell',
      label: 'llm',
      validate: retellValidator('llm'),
      body: retellLlmBody(publishable, [], CHECK_TARGET),
      settings: settings.llm,
      settingsRoot: '$.providerSettings.llm',
      ours: llmField,
    }),
    ...bodyProblems({
      provider: 'Retell',
      label: 'agent',
      validate: retellValidator('agent'),
      body: retellAgentBody(publishable, 'llm_checking', CHECK_TARGET),
      settings: settings.agent,
      settingsRoot: '$.providerSettings.agent',
      ours: (parts) => agentField(parts, agent),
    }),
  );
  // One problem per field: a path both bodies name keeps the first.
  return problems.filter((problem, index) => problems.findIndex((p) => p.path === problem.path) === index);
}
