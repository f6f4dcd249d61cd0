import {
  type Agent,
  type AgentCollectField,
  type AgentModel,
  type AgentVoice,
  type AgentVoicemail,
  ApiFailure,
  type CollectType,
  type VoicemailAction,
} from '../../api.js';

/**
 * How an agent runs on every provider (docs/interface.md#agents): what it collects, its voice, model,
 * language, voicemail and provider settings, as the form holds them. Like the rest of the form, the
 * values are kept as typed and the API judges them; only `providerSettings` is parsed here, since
 * text that is not JSON cannot be sent as a value at all.
 */

/** One row of "What the agent collects"; `choices` as typed, comma separated (enum only). */
export interface CollectRow {
  name: string;
  type: CollectType;
  description: string;
  choices: string;
  required: boolean;
}

export interface DefinitionDraft {
  collect: CollectRow[];
  voiceProvider: string;
  voiceId: string;
  modelProvider: string;
  modelName: string;
  /** As typed: the API says what is wrong with a temperature that is not a number. */
  temperature: string;
  language: string;
  /** '' is the provider's default (the field is null). */
  voicemailAction: VoicemailAction | '';
  voicemailMessage: string;
  /** JSON text; empty: none. */
  providerSettings: string;
}

/** The seed's sample data (`name`, `email`, `address`), offered as one-click rows. */
export const COLLECT_PRESETS: CollectRow[] = [
  { name: 'name', type: 'string', description: "The caller's full name", choices: '', required: false },
  { name: 'email', type: 'string', description: "The caller's email address", choices: '', required: false },
  { name: 'address', type: 'string', description: "The caller's postal address", choices: '', required: false },
];

export function emptyCollectRow(): CollectRow {
  return { name: '', type: 'string', description: '', choices: '', required: false };
}

export function definitionDraftOf(agent: Agent | undefined): DefinitionDraft {
  return {
    collect: (agent?.collect ?? []).map((field) => ({
      name: field.name,
      type: field.type,
      description: field.description ?? '',
      choices: field.choices?.join(', ') ?? '',
      required: field.required ?? false,
    })),
    voiceProvider: agent?.voice?.provider ?? '',
    voiceId: agent?.voice?.voiceId ?? '',
    modelProvider: agent?.model?.provider ?? '',
    modelName: agent?.model?.name ?? '',
    temperature: agent?.model?.temperature?.toString() ?? '',
    language: agent?.language ?? '',
    voicemailAction: agent?.voicemail?.action ?? '',
    voicemailMessage: agent?.voicemail?.message ?? '',
    providerSettings:
      agent?.providerSettings === null || agent?.providerSettings === undefined
        ? ''
        : JSON.stringify(agent.providerSettings, null, 2),
  };
}

/** `a, b ,, c` → `["a","b","c"]`. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A number as typed: a number when it reads as one, else the text, for the API to refuse by name. */
function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

type CollectInput = Omit<AgentCollectField, 'choices'> & { choices?: string[] };
type ModelInput = Omit<AgentModel, 'temperature'> & { temperature?: number | string };

/** The new fields as the API takes them; `providerSettings` is `undefined` while its text is not JSON. */
export interface DefinitionFields {
  collect: CollectInput[];
  voice: AgentVoice | null;
  model: ModelInput | null;
  language: string | null;
  voicemail: AgentVoicemail | null;
  providerSettings: unknown;
}

export function definitionFieldsOf(draft: DefinitionDraft): DefinitionFields {
  const voiceGiven = draft.voiceProvider.trim() !== '' || draft.voiceId.trim() !== '';
  const modelGiven = [draft.modelProvider, draft.modelName, draft.temperature].some((text) => text.trim() !== '');
  return {
    collect: draft.collect.map((row) => ({
      name: row.name.trim(),
      type: row.type,
      description: row.description,
      // Choices belong to an enum only; typed for another type and switched away, they are not sent.
      ...(row.type === 'enum' ? { choices: commaList(row.choices) } : {}),
      required: row.required,
    })),
    voice: voiceGiven ? { provider: draft.voiceProvider.trim(), voiceId: draft.voiceId.trim() } : null,
    model: modelGiven
      ? {
          provider: draft.modelProvider.trim(),
          name: draft.modelName.trim(),
          ...(draft.temperature.trim() === '' ? {} : { temperature: numberOrText(draft.temperature) }),
        }
      : null,
    language: draft.language.trim() || null,
    voicemail:
      draft.voicemailAction === ''
        ? null
        : {
            action: draft.voicemailAction,
            // The message is said on leave_message only; the API says when that needs one.
            ...(draft.voicemailAction === 'leave_message' && draft.voicemailMessage.trim() !== ''
              ? { message: draft.voicemailMessage }
              : {}),
          },
    providerSettings: parsedSettings(draft.providerSettings).value,
  };
}

/** The JSON text of `providerSettings`: its value (null when empty), or why it does not parse. */
export function parsedSettings(text: string): { value: unknown; problem?: string } {
  if (text.trim() === '') return { value: null };
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { value: undefined, problem: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The new fields that differ from what `saved` holds (for a new agent: from the server's defaults),
 * so a form that leaves them alone sends none of them and the server's defaults stay in force.
 */
export function changedDefinitionFields(draft: DefinitionDraft, saved: Agent | undefined): Partial<DefinitionFields> {
  const now = definitionFieldsOf(draft);
  const before = definitionFieldsOf(definitionDraftOf(saved));
  const changed: Partial<DefinitionFields> = {};
  for (const key of Object.keys(now) as (keyof DefinitionFields)[]) {
    if (JSON.stringify(now[key]) !== JSON.stringify(before[key])) Object.assign(changed, { [key]: now[key] });
  }
  return changed;
}

/**
 * Refuses to send a form whose provider settings are not JSON: the problem is shown beside the field,
 * as the API's own problems are, and nothing is sent.
 */
export function unsendableDefinition(draft: DefinitionDraft): ApiFailure | null {
  const { problem } = parsedSettings(draft.providerSettings);
  if (problem === undefined) return null;
  return new ApiFailure(0, 'form:invalid_json', 'The form cannot be sent as it is', [
    { path: '$.providerSettings', message: `is not valid JSON: ${problem}` },
  ]);
}
