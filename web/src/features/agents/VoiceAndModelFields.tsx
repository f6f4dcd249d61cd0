import { useId, useState } from 'react';
import { type ApiFailure, api, type ProviderName, type VoicemailAction, type VoiceOption } from '../../api.js';
import { Field, FieldError, FieldErrorsUnder, useLoad } from '../../ui.js';
import { type DefinitionDraft, parsedSettings } from './definition.js';

/** Common BCP-47 tags, offered as the language is typed; any other tag can be typed. */
const LANGUAGES: [tag: string, name: string][] = [
  ['en-US', 'English (United States)'],
  ['en-GB', 'English (United Kingdom)'],
  ['en-AU', 'English (Australia)'],
  ['en-IN', 'English (India)'],
  ['es-ES', 'Spanish (Spain)'],
  ['es-MX', 'Spanish (Mexico)'],
  ['es-US', 'Spanish (United States)'],
  ['fr-FR', 'French (France)'],
  ['fr-CA', 'French (Canada)'],
  ['de-DE', 'German'],
  ['it-IT', 'Italian'],
  ['pt-BR', 'Portuguese (Brazil)'],
  ['pt-PT', 'Portuguese (Portugal)'],
  ['nl-NL', 'Dutch'],
  ['pl-PL', 'Polish'],
  ['sv-SE', 'Swedish'],
  ['da-DK', 'Danish'],
  ['nb-NO', 'Norwegian'],
  ['fi-FI', 'Finnish'],
  ['tr-TR', 'Turkish'],
  ['ru-RU', 'Russian'],
  ['hi-IN', 'Hindi'],
  ['ja-JP', 'Japanese'],
  ['ko-KR', 'Korean'],
  ['zh-CN', 'Chinese (Mandarin, simplified)'],
];

const VOICEMAIL_ACTIONS: { value: VoicemailAction | ''; label: string }[] = [
  { value: '', label: "Provider's default" },
  { value: 'hang_up', label: 'Hang up' },
  { value: 'leave_message', label: 'Leave a message' },
];

type Set = <K extends keyof DefinitionDraft>(key: K, value: DefinitionDraft[K]) => void;

/**
 * How the agent sounds and thinks: voice, model, language and what it does on reaching a voicemail.
 * Empty fields are the provider's defaults. The simulator plays scripts and ignores them, so an
 * agent can be tried there and moved to Vapi or Retell as it is.
 */
export function VoiceAndModelFields({
  draft,
  set,
  failure,
  credentialId,
}: {
  draft: DefinitionDraft;
  set: Set;
  failure: ApiFailure | null;
  /** The agent's provider credential: its account's voices are offered in a picker. */
  credentialId: string | null;
}) {
  return (
    <fieldset className="field" aria-label="Voice and model">
      <legend>Voice and model</legend>
      <p className="hint">Empty: the provider's default. The simulator ignores these.</p>
      {credentialId ? (
        <VoicePicker key={credentialId} credentialId={credentialId} draft={draft} set={set} failure={failure} />
      ) : (
        <VoiceText draft={draft} set={set} failure={failure} showProvider />
      )}
      <FieldError failure={failure} path="$.voice" />
      <div className="grid">
        <Field label="Model provider" path="$.model.provider" failure={failure}>
          {(id) => (
            <input
              id={id}
              value={draft.modelProvider}
              placeholder="openai"
              onChange={(e) => set('modelProvider', e.target.value)}
            />
          )}
        </Field>
        <Field label="Model" path="$.model.name" failure={failure}>
          {(id) => (
            <input
              id={id}
              value={draft.modelName}
              placeholder="gpt-4o-mini"
              onChange={(e) => set('modelName', e.target.value)}
            />
          )}
        </Field>
        <Field label="Temperature" path="$.model.temperature" failure={failure} hint="0 to 2; empty: the default.">
          {(id) => (
            <input
              id={id}
              inputMode="decimal"
              value={draft.temperature}
              onChange={(e) => set('temperature', e.target.value)}
            />
          )}
        </Field>
      </div>
      <FieldError failure={failure} path="$.model" />
      <div className="grid">
        <LanguageField draft={draft} set={set} failure={failure} />
        <Field label="Voicemail" path="$.voicemail.action" failure={failure}>
          {(id) => (
            <select
              id={id}
              value={draft.voicemailAction}
              onChange={(e) => set('voicemailAction', e.target.value as VoicemailAction | '')}
            >
              {VOICEMAIL_ACTIONS.map((action) => (
                <option key={action.value} value={action.value}>
                  {action.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {draft.voicemailAction === 'leave_message' && (
        <Field
          label="Voicemail message"
          path="$.voicemail.message"
          failure={failure}
          hint="Said to the voicemail; {{name}} placeholders are filled from the call's variables."
        >
          {(id) => (
            <textarea
              id={id}
              rows={2}
              value={draft.voicemailMessage}
              onChange={(e) => set('voicemailMessage', e.target.value)}
            />
          )}
        </Field>
      )}
      <FieldError failure={failure} path="$.voicemail" />
    </fieldset>
  );
}

function LanguageField({ draft, set, failure }: { draft: DefinitionDraft; set: Set; failure: ApiFailure | null }) {
  const listId = useId();
  return (
    <Field label="Language" path="$.language" failure={failure} hint="A BCP-47 tag, e.g. en-US or es-ES.">
      {(id) => (
        <>
          <input
            id={id}
            list={listId}
            value={draft.language}
            placeholder="en-US"
            autoComplete="off"
            onChange={(e) => set('language', e.target.value)}
          />
          <datalist id={listId}>
            {LANGUAGES.map(([tag, name]) => (
              <option key={tag} value={tag}>
                {name}
              </option>
            ))}
          </datalist>
        </>
      )}
    </Field>
  );
}

/** Free text voice: who synthesizes it and the voice's id there. */
function VoiceText({
  draft,
  set,
  failure,
  showProvider,
}: {
  draft: DefinitionDraft;
  set: Set;
  failure: ApiFailure | null;
  showProvider: boolean;
}) {
  return (
    <div className="grid">
      {showProvider && (
        <Field label="Voice provider" path="$.voice.provider" failure={failure}>
          {(id) => (
            <input
              id={id}
              value={draft.voiceProvider}
              placeholder="11labs"
              onChange={(e) => set('voiceProvider', e.target.value)}
            />
          )}
        </Field>
      )}
      <Field label="Voice ID" path="$.voice.voiceId" failure={failure}>
        {(id) => (
          <input id={id} value={draft.voiceId} placeholder="burt" onChange={(e) => set('voiceId', e.target.value)} />
        )}
      </Field>
    </div>
  );
}

const DEFAULT_VOICE = '';
const OTHER_VOICE = 'other';

/** How a voice reads in the picker: `Burt · 11labs, male, American`. */
function voiceLabel(voice: VoiceOption): string {
  const details = [voice.gender, voice.accent, voice.age].filter(Boolean).join(', ');
  const where = details ? `${voice.provider}, ${details}` : voice.provider;
  return voice.voiceId === null ? `${voice.name} · ${where} (type a voice id)` : `${voice.name} · ${where}`;
}

/**
 * The voices the credential's account offers, in a select. An entry without a voice id stands for
 * all of a provider's voices (typed in); "Another voice" takes any provider and id. While the list
 * loads, or when the provider has none to give, the voice is typed in.
 */
function VoicePicker({
  credentialId,
  draft,
  set,
  failure,
}: {
  credentialId: string;
  draft: DefinitionDraft;
  set: Set;
  failure: ApiFailure | null;
}) {
  const voices = useLoad(
    () => api<{ data: VoiceOption[] }>('GET', `/v1/provider-credentials/${encodeURIComponent(credentialId)}/voices`),
    credentialId,
  );
  const [other, setOther] = useState(false);
  const options = voices.data?.data ?? [];
  if (options.length === 0) {
    return (
      <>
        <VoiceText draft={draft} set={set} failure={failure} showProvider />
        <p className="hint">
          {voices.failure
            ? `The account's voices could not be listed (${voices.failure.message}): type the voice.`
            : voices.data
              ? 'The provider lists no voices for this account: type the voice.'
              : 'Loading the account’s voices…'}
        </p>
      </>
    );
  }

  const exact = options.findIndex(
    (voice) => voice.voiceId !== null && voice.provider === draft.voiceProvider && voice.voiceId === draft.voiceId,
  );
  const anyOf = options.findIndex((voice) => voice.voiceId === null && voice.provider === draft.voiceProvider);
  const selected = other
    ? OTHER_VOICE
    : exact >= 0
      ? String(exact)
      : anyOf >= 0
        ? String(anyOf)
        : draft.voiceProvider === '' && draft.voiceId === ''
          ? DEFAULT_VOICE
          : OTHER_VOICE;
  /** What is typed beside the picker: provider and id, the id of a provider's voice, or nothing. */
  const typed =
    selected === OTHER_VOICE
      ? 'both'
      : selected !== DEFAULT_VOICE && options[Number(selected)]?.voiceId === null
        ? 'id'
        : 'none';
  const choose = (value: string) => {
    setOther(value === OTHER_VOICE);
    if (value === OTHER_VOICE) return;
    const voice = value === DEFAULT_VOICE ? undefined : options[Number(value)];
    set('voiceProvider', voice?.provider ?? '');
    set('voiceId', voice?.voiceId ?? '');
  };
  return (
    <>
      <Field label="Voice">
        {(id) => (
          <select id={id} value={selected} onChange={(e) => choose(e.target.value)}>
            <option value={DEFAULT_VOICE}>Provider's default</option>
            {options.map((voice, index) => (
              <option key={`${voice.provider}:${voice.voiceId ?? '*'}:${voice.name}`} value={String(index)}>
                {voiceLabel(voice)}
              </option>
            ))}
            <option value={OTHER_VOICE}>Another voice (type it)</option>
          </select>
        )}
      </Field>
      {typed === 'both' && <VoiceText draft={draft} set={set} failure={failure} showProvider />}
      {typed === 'id' && <VoiceText draft={draft} set={set} failure={failure} showProvider={false} />}
      {typed !== 'both' && <FieldError failure={failure} path="$.voice.provider" />}
      {typed === 'none' && <FieldError failure={failure} path="$.voice.voiceId" />}
    </>
  );
}

const SETTINGS_HINTS: Record<ProviderName, string> = {
  simulator: 'Published when the agent moves to Vapi or Retell; the simulator ignores it. Empty: none.',
  vapi: "Merged last into the Vapi assistant, for its features this form does not have; checked against Vapi's published schema when saved. Empty: none.",
  retell:
    'Merged last into what is published: {"agent": {…}} into the Retell agent, {"llm": {…}} into its LLM; checked against Retell\'s published schema when saved. Empty: none.',
};

const SETTINGS_EXAMPLES: Record<ProviderName, string> = {
  simulator: '{"backgroundSound": "office"}',
  vapi: '{"backgroundSound": "office"}',
  retell: '{"agent": {"ambient_sound": "coffee-shop"}}',
};

/**
 * `providerSettings` as JSON text: merged last into what is published, for provider features the
 * form does not have. Text that is not JSON is said so here as it is typed, and the form is not sent.
 */
export function ProviderSettingsField({
  text,
  onChange,
  failure,
  provider,
}: {
  text: string;
  onChange: (text: string) => void;
  failure: ApiFailure | null;
  provider: ProviderName;
}) {
  const { problem } = parsedSettings(text);
  return (
    <Field
      label="Provider settings (JSON object)"
      path="$.providerSettings"
      failure={failure}
      hint={
        problem !== undefined && !failure?.at('$.providerSettings') ? (
          <span className="error">Not valid JSON yet ({problem}).</span>
        ) : (
          SETTINGS_HINTS[provider]
        )
      }
    >
      {(id) => (
        <>
          <textarea
            id={id}
            rows={3}
            value={text}
            spellCheck={false}
            placeholder={SETTINGS_EXAMPLES[provider]}
            onChange={(e) => onChange(e.target.value)}
          />
          <FieldErrorsUnder failure={failure} path="$.providerSettings" />
        </>
      )}
    </Field>
  );
}
