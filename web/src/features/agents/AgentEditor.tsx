import { type FormEvent, type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import {
  AGENT_TYPE_LABELS,
  type Agent,
  type AgentType,
  type ApiFailure,
  api,
  type Call,
  type Page,
  type ProviderCredential,
  type ProviderName,
  type SimulatorScenario,
  type Tool,
} from '../../api.js';
import { Link, navigate, useLocation } from '../../router.js';
import {
  BackLink,
  Badge,
  ConfirmButton,
  Empty,
  Field,
  FieldError,
  FormFailure,
  formatTime,
  Loaded,
  Loading,
  SaveBar,
  useAction,
  useLoad,
  usePolling,
} from '../../ui.js';
import { formatDuration } from '../calls/format.js';
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

/**
 * The agent a create has just made: the page of `/agents/:id` is a new component (keyed by id), and
 * this is how it knows to open on the new agent's credentials, the next thing its owner needs.
 */
let createdJustNow: string | undefined;

/** The saved agent's tabs, each named in the page's URL (`?tab=webhooks`) so a link opens it. */
const TABS = [
  { key: 'settings', label: 'Settings' },
  { key: 'credentials', label: 'Credentials' },
  { key: 'test-call', label: 'Test call' },
  { key: 'webhooks', label: 'Webhooks' },
  { key: 'calls', label: 'Calls' },
] as const;
type TabKey = (typeof TABS)[number]['key'];
const isTab = (value: string | null): value is TabKey => TABS.some((tab) => tab.key === value);

/** `/agents/new` (the settings form alone) and `/agents/:id` (its tabs). */
export function AgentEditor({ id }: { id?: string }) {
  const agent = useLoad(() => (id ? api<Agent>('GET', `/v1/agents/${id}`) : Promise.resolve(undefined)), id ?? 'new');
  // While the agent is being published to its provider, its state is read again every 2 s.
  usePolling(agent.reload, agent.data?.providerSync.state === 'pending' ? 2000 : null, agent.data, agent.failure);
  if (!id) {
    return (
      <>
        <BackLink to="/agents">Agents</BackLink>
        <AgentScreen key="new" agent={undefined} onSaved={() => {}} />
      </>
    );
  }
  if (!agent.data) {
    if (!agent.failure) return <Loading what="the agent" />;
    return (
      <section className="card">
        <FormFailure failure={agent.failure} />
        <Link to="/agents">Back to the agents</Link>
      </section>
    );
  }
  return <AgentPage agent={agent.data} failure={agent.failure} onSaved={(saved) => agent.setData(saved)} />;
}

/**
 * A saved agent: its name, state and tabs stay at the top while a tab's content scrolls. Tabs follow
 * the ARIA tabs pattern (arrow keys, Home and End move between them); a tab's panel is built the first
 * time it is opened and then only hidden, so unsaved settings survive a look at another tab.
 */
function AgentPage({
  agent,
  failure,
  onSaved,
}: {
  agent: Agent;
  failure: ApiFailure | null;
  onSaved: (agent: Agent) => void;
}) {
  const { query } = useLocation();
  const [landing] = useState<TabKey>(() =>
    createdJustNow === agent.id && agent.type === 'click_to_call' ? 'credentials' : 'settings',
  );
  useEffect(() => {
    if (createdJustNow === agent.id) createdJustNow = undefined;
  }, [agent.id]);
  const asked = query.get('tab');
  const tab: TabKey = isTab(asked) ? asked : landing;
  const [opened, setOpened] = useState<TabKey[]>([tab]);
  if (!opened.includes(tab)) setOpened([...opened, tab]);
  const base = useId();
  const tabRefs = useRef(new Map<TabKey, HTMLButtonElement>());

  const select = (key: TabKey, focus = false) => {
    navigate(`/agents/${agent.id}?tab=${key}`, { replace: true });
    if (focus) tabRefs.current.get(key)?.focus();
  };
  const onTabKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const at = TABS.findIndex((t) => t.key === tab);
    const next =
      event.key === 'ArrowRight'
        ? (at + 1) % TABS.length
        : event.key === 'ArrowLeft'
          ? (at - 1 + TABS.length) % TABS.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? TABS.length - 1
              : undefined;
    if (next === undefined) return;
    event.preventDefault();
    select(TABS[next]?.key ?? 'settings', true);
  };

  const panel = (key: TabKey): ReactNode => {
    switch (key) {
      case 'settings':
        return <AgentScreen agent={agent} onSaved={onSaved} />;
      case 'credentials':
        return agent.type === 'click_to_call' ? (
          <CredentialsPanel agentId={agent.id} />
        ) : (
          <section className="card" aria-label="Credentials">
            <h3>Credentials</h3>
            <p className="hint">
              Only Click to Call agents have an API Token and API Secret: a backend uses them to ask the agent to call
              someone. This agent is {AGENT_TYPE_LABELS[agent.type]}; its calls start from the API or the Test call tab.
            </p>
          </section>
        );
      case 'test-call':
        // Keyed by the variables as saved: a changed script asks for its own.
        return agent.type === 'inbound' ? (
          <SimulateInboundPanel key={agent.variables.join()} agent={agent} />
        ) : (
          <TestCallPanel key={agent.variables.join()} agent={agent} />
        );
      case 'webhooks':
        return <IntegrationsPanel agent={agent} />;
      case 'calls':
        return <AgentCalls agent={agent} />;
    }
  };

  return (
    <>
      <BackLink to="/agents">Agents</BackLink>
      <div className="sticky-head">
        <div className="toolbar">
          <h2>{agent.name}</h2>
          <Badge value={agentState(agent)} />
        </div>
        <div className="page-tabs" role="tablist" aria-label="Agent" onKeyDown={onTabKey}>
          {TABS.map(({ key, label }) => (
            <button
              key={key}
              ref={(element) => {
                if (element) tabRefs.current.set(key, element);
              }}
              type="button"
              role="tab"
              id={`${base}-tab-${key}`}
              aria-selected={tab === key}
              aria-controls={`${base}-panel-${key}`}
              tabIndex={tab === key ? 0 : -1}
              onClick={() => select(key)}
            >
              {label}
            </button>
          ))}
        </div>
      </div>
      <FormFailure failure={failure} />
      {TABS.map(({ key }) => (
        <div
          key={key}
          role="tabpanel"
          id={`${base}-panel-${key}`}
          aria-labelledby={`${base}-tab-${key}`}
          hidden={tab !== key}
          data-tab={key}
        >
          {opened.includes(key) && panel(key)}
        </div>
      ))}
    </>
  );
}

/** The agent's latest calls, each linked to its page, and the calls list filtered to the agent. */
function AgentCalls({ agent }: { agent: Agent }) {
  const calls = useLoad(
    () => api<Page<Call>>('GET', `/v1/calls?agentId=${encodeURIComponent(agent.id)}&limit=${RECENT_CALLS}`),
    agent.id,
  );
  return (
    <section className="card" aria-label="Recent calls">
      <div className="toolbar">
        <h3>Recent calls</h3>
        <Link to={`/calls?agentId=${encodeURIComponent(agent.id)}`}>Every call of this agent →</Link>
      </div>
      <Loaded load={calls} what="the agent's calls">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No calls yet. Place one from the Test call tab.</Empty>
          ) : (
            <div className="table-scroll">
              <table className="stack" aria-label="Recent calls">
                <thead>
                  <tr>
                    <th>Placed</th>
                    <th>Number</th>
                    <th>Status</th>
                    <th>Outcome</th>
                    <th>Duration</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((call) => (
                    <tr key={call.id}>
                      <td data-label="Placed">
                        <Link to={`/calls/${call.id}`}>{formatTime(call.createdAt)}</Link>
                      </td>
                      <td data-label="Number">{call.direction === 'inbound' ? call.from : call.to}</td>
                      <td data-label="Status">
                        <Badge value={call.status} />
                      </td>
                      <td data-label="Outcome">{call.outcome ?? '—'}</td>
                      <td data-label="Duration">{formatDuration(call.durationSeconds)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </section>
  );
}
const RECENT_CALLS = 10;

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
      createdJustNow = result.id;
      navigate(`/agents/${result.id}`);
    }
  }

  const providerCredentials = (credentials.data?.data ?? []).filter((c) => c.provider === draft.provider);
  return (
    <form
      className="card wide"
      onSubmit={submit}
      aria-busy={save.busy}
      aria-label={agent ? 'Agent settings' : 'New agent'}
      noValidate
    >
      {!agent && <h2>New agent</h2>}
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
                  No {PROVIDER_LABELS[draft.provider]} credential yet: <Link to="/settings">add one in Settings</Link>.
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
        credentialId={draft.provider !== 'simulator' && draft.providerCredentialId ? draft.providerCredentialId : null}
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
          Refuse requests signed without a signature-timestamp header, so a captured request cannot be replayed after 5
          minutes.
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
          tools={(tools.data?.data ?? []).filter((tool) => draft.toolIds.includes(tool.id))}
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
  );
}
