/**
 * The agent as a portable definition (issue 17, decision 0036): what it collects, how it sounds and
 * thinks, what it does on voicemail, and the provider settings merged last into what is published.
 * The checks here are pure and provider-neutral; what a provider's published schema refuses is
 * checked by `providers/agent-problems.ts`.
 */
import type { FieldProblem } from '../errors.js';
import { placeholdersOf } from '../lib/template.js';
import {
  type AgentCollectField,
  type AgentModel,
  type AgentVoice,
  type AgentVoicemail,
  PROVIDER_SETTINGS_MAX_BYTES,
  PROVIDER_SETTINGS_MAX_DEPTH,
  type SimulatorScenario,
} from './agents.schemas.js';

export type CollectField = AgentCollectField;

/** What is published to a provider, whichever it is: the agent's conversation and how it runs. */
export interface AgentDefinition {
  name: string;
  prompt: string;
  firstMessage: string;
  outcomes: readonly string[];
  maxCallDurationSeconds: number;
  collect: readonly CollectField[];
  voice: AgentVoice | null;
  model: AgentModel | null;
  language: string | null;
  voicemail: AgentVoicemail | null;
  providerSettings: Record<string, unknown> | null;
}

/**
 * A voice an agent can be given, as a provider account offers it (`GET /v1/provider-credentials/:id/voices`):
 * `voiceId` null when the provider takes any of its own voice ids, typed in (Vapi documents some
 * providers by name only).
 */
export interface VoiceChoice {
  provider: string;
  voiceId: string | null;
  name: string;
  gender?: string;
  accent?: string;
  age?: string;
  previewUrl?: string;
}

/** A collect name the published analysis uses for the outcome itself. */
export const RESERVED_COLLECT_NAMES = ['status'];
/** Names that are identifiers but mean something to every JavaScript object. */
const UNSAFE_NAMES = ['__proto__', 'constructor', 'prototype'];

/** `$.a.b`, `$.a["b c"]`, `$.a[0]`: a JSONPath from its parts. */
export function jsonPath(parts: readonly (string | number)[], root = '$'): string {
  return (
    root +
    parts
      .map((part) =>
        typeof part === 'number' || /^\d+$/.test(part)
          ? `[${part}]`
          : /^[A-Za-z_$][\w$]*$/.test(part)
            ? `.${part}`
            : `[${JSON.stringify(part)}]`,
      )
      .join('')
  );
}

/** A collect field as stored and shown: description and required always present, choices as given (only an enum has them). */
export function normalizeCollect(
  fields: readonly {
    name: string;
    type: CollectField['type'];
    description?: string;
    choices?: string[];
    required?: boolean;
  }[],
): CollectField[] {
  return fields.map((field) => ({
    name: field.name,
    type: field.type,
    description: field.description ?? '',
    // Kept as given: choices on another type are refused, not dropped.
    ...(field.choices !== undefined ? { choices: [...field.choices] } : {}),
    required: field.required ?? false,
  }));
}

/** The canonical form of a BCP-47 tag (`en-us` → `en-US`), or undefined when it is not one. */
export function canonicalLanguage(tag: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical;
  } catch {
    return undefined;
  }
}

/** The voicemail message, when the agent leaves one. */
export const voicemailMessageOf = (voicemail: AgentVoicemail | null | undefined): string =>
  voicemail?.action === 'leave_message' ? (voicemail.message ?? '') : '';

/** The `{{variables}}` the agent's texts use: prompt, first message, voicemail message. */
export function variablesOf(agent: {
  prompt: string;
  firstMessage: string;
  voicemail?: AgentVoicemail | null | unknown;
}): string[] {
  return placeholdersOf(agent.prompt, agent.firstMessage, voicemailMessageOf(agent.voicemail as AgentVoicemail | null));
}

function collectProblems(collect: readonly CollectField[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const firstIndex = new Map<string, number>();
  collect.forEach((field, index) => {
    const path = `$.collect[${index}]`;
    const earlier = firstIndex.get(field.name);
    if (earlier !== undefined) {
      problems.push({ path: `${path}.name`, message: `duplicates $.collect[${earlier}].name: names are unique` });
    } else firstIndex.set(field.name, index);
    if (RESERVED_COLLECT_NAMES.includes(field.name)) {
      problems.push({
        path: `${path}.name`,
        message: `"${field.name}" is the outcome's own field in what is published; choose another name`,
      });
    } else if (UNSAFE_NAMES.includes(field.name)) {
      problems.push({ path: `${path}.name`, message: `"${field.name}" is not a name we accept; choose another` });
    }
    if (field.type === 'enum' && !field.choices) {
      problems.push({ path: `${path}.choices`, message: 'is required for an enum: its values' });
    } else if (field.type !== 'enum' && field.choices !== undefined) {
      problems.push({ path: `${path}.choices`, message: 'only an enum has choices' });
    }
  });
  return problems;
}

/** Whether `value` is of the declared type: what a scenario may promise for this field. */
export function fitsCollectField(field: CollectField, value: unknown): boolean {
  switch (field.type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'enum':
      return typeof value === 'string' && (field.choices ?? []).includes(value);
  }
}

const describeType = (field: CollectField) =>
  field.type === 'enum'
    ? `one of ${(field.choices ?? []).map((choice) => JSON.stringify(choice)).join(', ')}`
    : `a ${field.type}`;

/**
 * A scenario can promise only what the agent collects, each value of its declared type. An agent
 * that declares nothing (`collect: []`, as every agent before issue 17) keeps any collected data.
 */
function scenarioProblems(collect: readonly CollectField[], scenario: SimulatorScenario | null): FieldProblem[] {
  const data = scenario?.outcome?.collectedData;
  if (!data || collect.length === 0) return [];
  const byName = new Map(collect.map((field) => [field.name, field]));
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(data)) {
    const path = jsonPath(['simulator', 'outcome', 'collectedData', key]);
    const field = byName.get(key);
    if (!field) problems.push({ path, message: "is not one of the agent's collect names" });
    else if (!fitsCollectField(field, value)) problems.push({ path, message: `must be ${describeType(field)}` });
  }
  return problems;
}

/** The first problem of a value too big or too deep for `providerSettings`, or of a key that is never safe. */
function settingsProblems(settings: Record<string, unknown> | null): FieldProblem[] {
  if (settings === null) return [];
  const bytes = Buffer.byteLength(JSON.stringify(settings));
  if (bytes > PROVIDER_SETTINGS_MAX_BYTES) {
    return [
      { path: '$.providerSettings', message: `is ${bytes} bytes as JSON; at most ${PROVIDER_SETTINGS_MAX_BYTES}` },
    ];
  }
  const problems: FieldProblem[] = [];
  const walk = (value: unknown, parts: (string | number)[]) => {
    if (problems.length > 0 || typeof value !== 'object' || value === null) return;
    if (parts.length >= PROVIDER_SETTINGS_MAX_DEPTH) {
      problems.push({
        path: jsonPath(parts, '$.providerSettings'),
        message: `nests too deeply: at most ${PROVIDER_SETTINGS_MAX_DEPTH} levels of objects and arrays`,
      });
      return;
    }
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(item, [...parts, index]);
    } else
      for (const [key, child] of Object.entries(value)) {
        if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
          problems.push({
            path: jsonPath([...parts, key], '$.providerSettings'),
            message: 'is not a field name we accept',
          });
          return;
        }
        walk(child, [...parts, key]);
      }
  };
  walk(settings, []);
  return problems;
}

/** Everything of an agent's definition a JSON Schema cannot say, provider-neutral. */
export function definitionProblems(
  agent: Pick<AgentDefinition, 'collect' | 'language' | 'voicemail' | 'providerSettings'>,
  scenario: SimulatorScenario | null,
): FieldProblem[] {
  const problems = collectProblems(agent.collect);
  // The scenario is checked against a collect list that is itself sound.
  if (problems.length === 0) problems.push(...scenarioProblems(agent.collect, scenario));
  if (agent.language !== null && canonicalLanguage(agent.language) === undefined) {
    problems.push({ path: '$.language', message: 'must be a BCP-47 language tag, e.g. "en-US" or "es-ES"' });
  }
  if (agent.voicemail?.action === 'leave_message' && !agent.voicemail.message) {
    problems.push({ path: '$.voicemail.message', message: 'is required to leave a message' });
  } else if (agent.voicemail?.action === 'hang_up' && agent.voicemail.message !== undefined) {
    problems.push({ path: '$.voicemail.message', message: 'only leave_message has a message' });
  }
  problems.push(...settingsProblems(agent.providerSettings));
  return problems;
}
