/**
 * What Vapi would refuse of an agent, found when the agent is saved rather than when it is
 * published (decision 0036): the assistant body we would publish, providerSettings merged, checked
 * against Vapi's CreateAssistantDTO; each refusal named by our field where there is one.
 */
import type { AgentDefinition } from '../../agents/agent-definition.js';
import type { FieldProblem } from '../../errors.js';
import { bodyProblems, type ReservedField, reservedProblems } from '../published-schemas.js';
import { vapiAssistantBody } from './vapi-publisher.js';
import { vapiValidator } from './vapi-schemas.js';

/** What providerSettings may not set in the assistant: a field of the agent sets it, or we do. */
const RESERVED: ReservedField[] = [
  { path: ['name'], setBy: '$.name' },
  { path: ['firstMessage'], setBy: '$.firstMessage' },
  { path: ['maxDurationSeconds'], setBy: '$.maxCallDurationSeconds' },
  { path: ['model', 'provider'], setBy: '$.model.provider' },
  { path: ['model', 'model'], setBy: '$.model.name' },
  { path: ['model', 'temperature'], setBy: '$.model.temperature' },
  { path: ['model', 'messages'], setBy: '$.prompt' },
  { path: ['model', 'toolIds'], setBy: '$.toolIds' },
  { path: ['voice', 'provider'], setBy: '$.voice.provider' },
  { path: ['voice', 'voiceId'], setBy: '$.voice.voiceId' },
  { path: ['transcriber', 'language'], setBy: '$.language' },
  { path: ['voicemailMessage'], setBy: '$.voicemail.message' },
  { path: ['analysisPlan', 'structuredDataPlan', 'schema'], setBy: '$.collect' },
  { path: ['server'], setBy: null },
  { path: ['serverMessages'], setBy: null },
  { path: ['metadata'], setBy: null },
];

/** Our field for a field of the assistant body. */
function ours(parts: string[], agent: AgentDefinition): string | undefined {
  const [top, second] = parts;
  switch (top) {
    case 'name':
      return '$.name';
    case 'firstMessage':
      return '$.firstMessage';
    case 'maxDurationSeconds':
      return '$.maxCallDurationSeconds';
    case 'voice':
      return second === 'provider' || second === 'voiceId' ? `$.voice.${second}` : '$.voice';
    case 'model':
      if (second === 'model') return '$.model.name';
      if (second === 'provider' || second === 'temperature') return `$.model.${second}`;
      if (second === 'messages') return '$.prompt';
      if (second === 'toolIds') return '$.toolIds';
      return '$.model';
    case 'transcriber':
      return '$.language';
    case 'voicemailDetection':
      return '$.voicemail';
    case 'voicemailMessage':
      return '$.voicemail.message';
    case 'analysisPlan': {
      const name = parts[3] === 'schema' && parts[4] === 'properties' ? parts[5] : undefined;
      if (name === 'status') return '$.outcomes';
      const index = agent.collect.findIndex((field) => field.name === name);
      return index >= 0 ? `$.collect[${index}]` : '$.collect';
    }
    default:
      return undefined;
  }
}

/** Where the check publishes to: only the shape matters. */
const CHECK_TARGET = { serverUrl: 'https://switchboard.invalid/providers/vapi/webhook', webhookSecret: 'checking' };

export function vapiAgentProblems(agent: AgentDefinition): FieldProblem[] {
  const reserved = reservedProblems(agent.providerSettings, RESERVED, '$.providerSettings');
  if (reserved.length > 0) return reserved;
  const body = vapiAssistantBody({ ...agent, id: 'agt_checking', providerAgentId: null }, [], CHECK_TARGET);
  return bodyProblems({
    provider: 'Vapi',
    validate: vapiValidator('assistant'),
    body,
    settings: agent.providerSettings,
    settingsRoot: '$.providerSettings',
    ours: (parts) => ours(parts, agent),
  });
}
