import { type FormEvent, useState } from 'react';
import {
  AGENT_TYPE_LABELS,
  type Agent,
  type AgentType,
  type ApiFailure,
  api,
  type Page,
  type ProviderCredential,
  type ProviderName,
  type SimulatorScenario,
  type Tool,
} from '../../api.js';
import { Link, navigate } from '../../router.js';
import {
  Badge,
  ConfirmButton,
  Field,
  FieldError,
  FormFailure,
  Loading,
  SaveBar,
  useAction,
  useLoad,
  usePolling,
} from '../../ui.js';
import { IntegrationsPanel } from '../integrations/IntegrationsPanel.js';
import { agentState } from './AgentsPage.js';
import { CollectEditor } from './CollectEditor.js';
import { CredentialsPanel } from './CredentialsPanel.js';
import {
  changedDefinitionFields,
  type DefinitionDraft,
  definitionDraftOf,
  unsendableDefinition,
} from './definition.js';
import { ScenarioEditor } from './ScenarioEditor.js';
import { SimulateInboundPanel, TestCallPanel } from './TestCallPanel.js';
import { ProviderSettingsField, VoiceAndModelFields } from './VoiceAndModelFields.js';

const PROVIDER_LABELS: Record<ProviderName, string> = { simulator: 'Simulator', vapi: 'Vapi', retell: 'Retell' };
const DEFAULT_OUTCOMES = 'SOLD, INTERESTED, NOT_INTERESTED, CALLBACK, NO_ANSWER, VOICEMAIL, BUSY, FAILED, COMPLETED';

/** The form's state: numbers are kept as typed, so the API judges them and says what is wrong. */
interface Draft {
  name: string;
  type: AgentType;
  enabled: boolean;
  provider: ProviderName;
  providerCredentialId: string;
  prompt: string;
  firstMessage: string;
  fromNumber: string;
  disableSignatureVerification: boolean;
  requireSignatureTimestamp: boolean;
  /** Country codes as typed, separated by commas or spaces; empty: every country. */
  allowedCountries: string;
  maxConcurrentCalls: string;
  rateLimitPerMinute: string;
  maxCallDurationSeconds: string;
  outcomes: string;
  toolIds: string[];
  simulator: SimulatorScenario | null;
  /** What it collects, how it sounds and thinks: sent only where changed (definition.ts). */
  definition: DefinitionDraft;
}

function draftOf(agent: Agent | undefined): Draft {
  return {
    name: agent?.name ?? '',
    type: agent?.type ?? 'click_to_call',
    enabled: agent?.enabled ?? true,
    provider: agent?.provider ?? 'simulator',
    providerCredentialId: agent?.providerCredentialId ?? '',
    prompt: agent?.prompt ?? '',
    firstMessage: agent?.firstMessage ?? '',
    fromNumber: agent?.fromNumber ?? '',
    disableSignatureVerification: agent?.disableSignatureVerification ?? false,
    requireSignatureTimestamp: agent?.requireSignatureTimestamp ?? false,
    allowedCountries: agent?.allowedCountries?.join(', ') ?? '',
    maxConcurrentCalls: agent?.maxConcurrentCalls?.toString() ?? '',
    rateLimitPerMinute: agent ? (agent.rateLimitPerMinute?.toString() ?? '') : '60',
    maxCallDurationSeconds: String(agent?.maxCallDurationSeconds ?? 3600),
    outcomes: agent?.outcomes.join(', ') ?? DEFAULT_OUTCOMES,
    toolIds: agent?.toolIds ?? [],
    simulator: agent?.simulator ?? null,
    definition: definitionDraftOf(agent),
  };
}

/** The country codes typed, in capitals; the API says which one it does not know. */
function countryCodes(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((code) => code.trim().toUpperCase())
    .filter(Boolean);
}

/** A number field as typed: empty is null (no limit), a number is a number, anything else goes as text. */
function numberOrNull(text: string): number | string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

function bodyOf(draft: Draft) {
  return {
    name: draft.name,
    type: draft.type,
    enabled: draft.enabled,
    provider: draft.provider,
    providerCredentialId: draft.provider === 'simulator' ? null : draft.providerCredentialId || null,
    prompt: draft.prompt,
    firstMessage: draft.firstMessage,
    fromNumber: draft.fromNumber.trim() || null,
    disableSignatureVerification: draft.disableSignatureVerification,
    requireSignatureTimestamp: draft.requireSignatureTimestamp,
    allowedCountries: countryCodes(draft.allowedCountries).length > 0 ? countryCodes(draft.allowedCountries) : null,
    maxConcurrentCalls: numberOrNull(draft.maxConcurrentCalls),
    rateLimitPerMinute: numberOrNull(draft.rateLimitPerMinute),
    maxCallDurationSeconds: numberOrNull(draft.maxCallDurationSeconds) ?? 3600,
    outcomes: draft.outcomes
      .split(',')
      .map((outcome) => outcome.trim())
      .filter(Boolean),
    toolIds: draft.toolIds,
    simulator: draft.provider === 'simulator' ? draft.simulator : null,
  };
}

/** `/agents/new` and `/agents/:id`: the agent's settings, then what a saved agent has. */
export function AgentEditor({ id }: { id?: string }) {
  const agent = useLoad(() => (id ? api<Agent>('GET', `/v1/agents/${id}`) : Promise.resolve(undefined)), id ?? 'new');
  // While the agent is being published to its provider, its state is read again every 2 s.
  usePolling(agent.reload, agent.data?.providerSync.state === 'pending' ? 2000 : null, agent.data, agent.failure);
  // Keyed by the agent's id only: a reload updates its state shown without resetting the form.
  const screen = <AgentScreen key={id ?? 'new'} agent={agent.data} onSaved={(saved) => agent.setData(saved)} />;
  if (id && agent.failure) {
    return (
      <section className="card">
        <FormFailure failure={agent.failure} />
        <Link to="/agents">Back to the agents</Link>
      </section>
    );
  }
  if (id && !agent.data) return <Loading what="the agent" />;
  return screen;
}

function AgentScreen({ agent, onSaved }: { agent: Agent | undefined; onSaved: (agent: Agent) => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(agent));
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const remove = useAction();
  /** A problem found before sending (provider settings that are not JSON), shown as the API's are. */
  const [unsendable, setUnsendable] = useState<ApiFailure | null>(null);
  const credentials = useLoad(() => api<Page<ProviderCredential>>('GET', '/v1/provider-credentials?limit=100'), '');
  const tools = useLoad(() => api<Page<Tool>>('GET', '/v1/tools?limit=100'), '');
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setSaved(false);
    setDraft((current) => ({ ...current, [key]: value }));
  };
  const setDefinition = <K extends keyof DefinitionDraft>(key: K, value: DefinitionDraft[K]) => {
    setSaved(false);
    if (key === 'providerSettings') setUnsendable(null);
    setDraft((current) => ({ ...current, definition: { ...current.definition, [key]: value } }));
  };

  const failure = unsendable ?? save.failure;

  /** A whole-number setting, typed as text: the API says what is wrong with it, beside the field. */
  const countField = (
    key: 'maxConcurrentCalls' | 'rateLimitPerMinute' | 'maxCallDurationSeconds',
    label: string,
    hint?: string,
  ) => (
    <Field label={label} path={`$.${key}`} failure={failure} hint={hint}>
      {(fieldId) => (
        <input id={fieldId} inputMode="numeric" value={draft[key]} onChange={(e) => set(key, e.target.value)} />
      )}
    </Field>
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    const refused = unsendableDefinition(draft.definition);
    setUnsendable(refused);
    if (refused) return;
    const body = { ...bodyOf(draft), ...changedDefinitionFields(draft.definition, agent) };
    const result = await save.run(() =>
      agent ? api<Agent>('PATCH', `/v1/agents/${agent.id}`, body) : api<Agent>('POST', '/v1/agents', body),
    );
    if (!result) return;
    setSaved(true);
    if (agent) {
      onSaved(result);
      setDraft(draftOf(result));
    } else {
      navigate(`/agents/${result.id}`);
    }
  }

  const providerCredentials = (credentials.data?.data ?? []).filter((c) => c.provider === draft.provider);
  return (
    <>
      <form className="card wide" onSubmit={submit} aria-busy={save.busy} noValidate>
        <div className="toolbar">
          <h2>{agent ? agent.name : 'New agent'}</h2>
          {agent && <Badge value={agentState(agent)} />}
        </div>
        <div className="grid">
          <Field label="Name" path="$.name" failure={failure}>
            {(fieldId) => <input id={fieldId} value={draft.name} onChange={(e) => set('name', e.target.value)} />}
          </Field>
          <Field label="Type" path="$.type" failure={failure}>
            {(fieldId) => (
              <select id={fieldId} value={draft.type} onChange={(e) => set('type', e.target.value as AgentType)}>
                {(Object.keys(AGENT_TYPE_LABELS) as AgentType[]).map((type) => (
                  <option key={type} value={type}>
                    {AGENT_TYPE_LABELS[type]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Provider" path="$.provider" failure={failure}>
            {(fieldId) => (
              <select
                id={fieldId}
                value={draft.provider}
                onChange={(e) => set('provider', e.target.value as ProviderName)}
              >
                {(Object.keys(PROVIDER_LABELS) as ProviderName[]).map((provider) => (
                  <option key={provider} value={provider}>
                    {PROVIDER_LABELS[provider]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {draft.provider !== 'simulator' && (
            <Field
              label="Provider credential"
              path="$.providerCredentialId"
              failure={failure}
              hint={
                providerCredentials.length === 0 ? (
                  <>
                    No {PROVIDER_LABELS[draft.provider]} credential yet: <Link to="/settings">add one in Settings</Link>
                    .
                  </>
                ) : undefined
              }
            >
              {(fieldId) => (
                <select
                  id={fieldId}
                  value={draft.providerCredentialId}
                  onChange={(e) => set('providerCredentialId', e.target.value)}
                >
                  <option value="">— none —</option>
                  {providerCredentials.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.name}
                      {c.apiKeyLast4 ? ` (…${c.apiKeyLast4})` : ''}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          <Field
            label="From number"
            path="$.fromNumber"
            failure={failure}
            hint="E.164 caller id; required for Vapi and Retell."
          >
            {(fieldId) => (
              <input
                id={fieldId}
                value={draft.fromNumber}
                placeholder="+14155550100"
                onChange={(e) => set('fromNumber', e.target.value)}
              />
            )}
          </Field>
        </div>
        <Field
          label="Prompt"
          path="$.prompt"
          failure={failure}
          hint="The agent's script. {{name}} placeholders are filled from the call's variables."
        >
          {(fieldId) => (
            <textarea id={fieldId} rows={6} value={draft.prompt} onChange={(e) => set('prompt', e.target.value)} />
          )}
        </Field>
        <Field label="First message" path="$.firstMessage" failure={failure}>
          {(fieldId) => (
            <textarea
              id={fieldId}
              rows={2}
              value={draft.firstMessage}
              onChange={(e) => set('firstMessage', e.target.value)}
            />
          )}
        </Field>
        {agent && (
          <p className="hint" data-testid="variables-used">
            Variables used:{' '}
            {agent.variables.length === 0 ? (
              <em>none</em>
            ) : (
              agent.variables.map((name) => <code key={name}>{`{{${name}}} `}</code>)
            )}
            <span className="muted"> (as saved)</span>
          </p>
        )}
        <CollectEditor
          rows={draft.definition.collect}
          failure={failure}
          onChange={(rows) => setDefinition('collect', rows)}
        />
        <VoiceAndModelFields
          draft={draft.definition}
          set={setDefinition}
          failure={failure}
          credentialId={
            draft.provider !== 'simulator' && draft.providerCredentialId ? draft.providerCredentialId : null
          }
        />
        <ProviderSettingsField
          text={draft.definition.providerSettings}
          failure={failure}
          provider={draft.provider}
          onChange={(text) => setDefinition('providerSettings', text)}
        />
        <div className="grid">
          {countField('maxConcurrentCalls', 'Max concurrent calls', 'Empty: no limit.')}
          {countField('rateLimitPerMinute', 'Rate limit per minute', 'Click-to-call requests accepted per minute.')}
          {countField('maxCallDurationSeconds', 'Max call duration (seconds)')}
        </div>
        <Field label="Outcomes" path="$.outcomes" failure={failure} hint="Comma separated, UPPER_SNAKE_CASE.">
          {(fieldId) => <input id={fieldId} value={draft.outcomes} onChange={(e) => set('outcomes', e.target.value)} />}
        </Field>
        <Field
          label="Allowed countries"
          path="$.allowedCountries"
          failure={failure}
          hint="Two-letter country codes click to call may dial, e.g. US, CA. Empty: every country. Premium-rate and shared-cost numbers are always refused."
        >
          {(fieldId) => (
            <input
              id={fieldId}
              value={draft.allowedCountries}
              placeholder="Every country"
              autoCapitalize="characters"
              onChange={(e) => set('allowedCountries', e.target.value)}
            />
          )}
        </Field>
        {countryCodes(draft.allowedCountries).map((code, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the API names each code by its place in the list
          <FieldError key={index} failure={failure} path={`$.allowedCountries[${index}]`} label={code} />
        ))}
        <div className="field">
          <label className="inline">
            <input type="checkbox" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} />
            Enabled
          </label>
          <label className="inline">
            <input
              type="checkbox"
              checked={draft.disableSignatureVerification}
              onChange={(e) => set('disableSignatureVerification', e.target.checked)}
            />
            Disable Signature Verification
          </label>
          <div className="hint">
            Leave verification on unless your backend cannot sign: anyone with the API Token could then place calls.
          </div>
          <label className="inline">
            <input
              type="checkbox"
              checked={draft.requireSignatureTimestamp}
              onChange={(e) => set('requireSignatureTimestamp', e.target.checked)}
            />
            Require signature timestamp
          </label>
          <div className="hint">
            Refuse requests signed without a signature-timestamp header, so a captured request cannot be replayed after
            5 minutes.
          </div>
        </div>
        <fieldset className="field">
          <legend>Tools</legend>
          {tools.data?.data.length === 0 ? (
            <p className="hint">
              No tools yet. <Link to="/tools/new">Create a tool</Link> to let the agent call your endpoints.
            </p>
          ) : (
            tools.data?.data.map((tool) => (
              <label key={tool.id} className="inline">
                <input
                  type="checkbox"
                  checked={draft.toolIds.includes(tool.id)}
                  onChange={(e) =>
                    set(
                      'toolIds',
                      e.target.checked ? [...draft.toolIds, tool.id] : draft.toolIds.filter((t) => t !== tool.id),
                    )
                  }
                />
                {tool.name}
              </label>
            ))
          )}
          {draft.toolIds.map((_, index) => (
            <FieldError key={_} failure={failure} path={`$.toolIds[${index}]`} />
          ))}
        </fieldset>
        {draft.provider === 'simulator' && (
          <ScenarioEditor
            scenario={draft.simulator}
            outcomes={bodyOf(draft).outcomes}
            tools={tools.data?.data ?? []}
            failure={failure}
            onChange={(scenario) => set('simulator', scenario)}
          />
        )}
        {agent && agent.provider !== 'simulator' && (
          <div className="field">
            <strong>Provider sync </strong>
            <Badge value={agent.providerSync.state} />
            {agent.providerSync.syncedAt && (
              <span className="muted"> last published {new Date(agent.providerSync.syncedAt).toLocaleString()}</span>
            )}
            {agent.providerSync.error && <div className="error">{agent.providerSync.error}</div>}
          </div>
        )}
        <SaveBar failure={failure} saved={saved} busy={save.busy}>
          {agent && (
            <ConfirmButton
              label="Delete agent"
              question="Delete this agent, its credentials and integrations?"
              confirmLabel="Yes, delete"
              danger
              busy={remove.busy}
              onConfirm={async () => {
                const done = await remove.run(() => api('DELETE', `/v1/agents/${agent.id}`));
                if (done !== undefined) navigate('/agents');
              }}
            />
          )}
        </SaveBar>
        <FormFailure failure={remove.failure} />
      </form>
      {agent?.type === 'click_to_call' && <CredentialsPanel agentId={agent.id} />}
      {/* Keyed by the variables as saved: a changed script asks for its own. */}
      {agent && agent.type !== 'inbound' && <TestCallPanel key={agent.variables.join()} agent={agent} />}
      {agent?.type === 'inbound' && <SimulateInboundPanel key={agent.variables.join()} agent={agent} />}
      {agent && <IntegrationsPanel agent={agent} />}
    </>
  );
}
