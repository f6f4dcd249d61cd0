import { type FormEvent, useState } from 'react';
import {
  type Agent,
  api,
  type Page,
  type PhoneNumber,
  type ProviderCredential,
  type ProviderPhoneNumber,
  withQuery,
} from '../../api.js';
import { Link } from '../../router.js';
import {
  Badge,
  ConfirmButton,
  Field,
  FormFailure,
  Loaded,
  PagedTable,
  useAction,
  useLoad,
  usePager,
  usePolling,
} from '../../ui.js';
import './phone-numbers.css';

const PAGE_SIZE = 25;
/** While a binding is being published to the provider, the list asks again this often. */
const PENDING_POLL_MS = 2000;

/**
 * `/phone-numbers`: the organization's numbers at its providers, and the inbound agent that answers
 * each (docs/interface.md#phone-numbers). Numbers are imported from a provider account; binding one
 * to an agent is published to the provider in the background, as an agent is.
 */
export function PhoneNumbersPage() {
  const pager = usePager();
  const numbers = useLoad(
    () => api<Page<PhoneNumber>>('GET', withQuery('/v1/phone-numbers', { limit: PAGE_SIZE, cursor: pager.cursor })),
    pager.cursor ?? '',
  );
  const pending = numbers.data?.data.some((number) => number.providerSync.state === 'pending') ?? false;
  usePolling(numbers.reload, pending ? PENDING_POLL_MS : null, numbers.data, numbers.failure);
  // Past 100 agents a number's agent shows as its id, and the picker offers the first 100.
  const agents = useLoad(() => api<Page<Agent>>('GET', withQuery('/v1/agents', { limit: 100 })), 'agents');
  const credentials = useLoad(
    () => api<Page<ProviderCredential>>('GET', withQuery('/v1/provider-credentials', { limit: 100 })),
    'credentials',
  );
  const [importing, setImporting] = useState(false);
  const allAgents = agents.data?.data ?? [];
  const credentialNames = new Map((credentials.data?.data ?? []).map((c) => [c.id, c.name]));

  return (
    <section className="card phone-numbers" aria-label="Phone numbers">
      <div className="toolbar">
        <h2>Phone numbers</h2>
        {!importing && (
          <button type="button" onClick={() => setImporting(true)}>
            Import a number
          </button>
        )}
      </div>
      <p className="hint">
        Calls to a number bound to an <strong>Inbound</strong> agent are answered by that agent: its tools run and its
        outcome goes to its webhooks, as for the calls it places. A number answers for one agent at a time.
      </p>
      <FormFailure failure={agents.failure ?? credentials.failure} />
      {importing && (
        <ImportForm
          credentials={credentials.data?.data}
          agents={allAgents}
          onDone={(imported) => {
            setImporting(false);
            if (imported) numbers.reload();
          }}
        />
      )}
      <Loaded load={numbers} what="phone numbers">
        {(page) => (
          <PagedTable
            page={page}
            pager={pager}
            headers={['Number', 'Provider', 'Answered by', 'Provider sync', '']}
            className="stack"
            empty={
              <>
                No phone numbers yet. Import one from a Vapi or Retell account (
                <Link to="/settings">add its credential in Settings</Link> first), then bind it to an{' '}
                <strong>Inbound</strong> agent.
              </>
            }
            cells={(number) => (
              <NumberCells
                key={`${number.id}:${number.updatedAt}`}
                number={number}
                agents={allAgents}
                credentialName={credentialNames.get(number.providerCredentialId)}
                onChanged={numbers.reload}
              />
            )}
          />
        )}
      </Loaded>
    </section>
  );
}

/** The inbound agents that can answer a number: those on the number's provider account. */
function answeringAgents(agents: Agent[], providerCredentialId: string): Agent[] {
  return agents.filter((agent) => agent.type === 'inbound' && agent.providerCredentialId === providerCredentialId);
}

function NumberCells({
  number,
  agents,
  credentialName,
  onChanged,
}: {
  number: PhoneNumber;
  agents: Agent[];
  credentialName: string | undefined;
  onChanged: () => void;
}) {
  const [agentId, setAgentId] = useState(number.agentId ?? '');
  const bind = useAction();
  const remove = useAction();
  const candidates = answeringAgents(agents, number.providerCredentialId);
  const current = agents.find((agent) => agent.id === number.agentId);
  const changed = agentId !== (number.agentId ?? '');

  async function save(event: FormEvent) {
    event.preventDefault();
    const updated = await bind.run(() =>
      api<PhoneNumber>('PATCH', `/v1/phone-numbers/${encodeURIComponent(number.id)}`, { agentId: agentId || null }),
    );
    if (updated) onChanged();
  }

  return (
    <>
      <td data-label="Number">
        <strong>{number.number}</strong>
      </td>
      <td data-label="Provider">
        {number.provider}
        {credentialName && <div className="muted">{credentialName}</div>}
      </td>
      <td data-label="Answered by">
        <form className="row bind" onSubmit={save} aria-label={`Agent for ${number.number}`} noValidate>
          <select
            aria-label={`Agent answering ${number.number}`}
            value={agentId}
            onChange={(e) => setAgentId(e.target.value)}
          >
            <option value="">— no agent —</option>
            {candidates.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
            {number.agentId && !current && <option value={number.agentId}>{number.agentId}</option>}
            {number.agentId && current && !candidates.includes(current) && (
              <option value={current.id}>{current.name}</option>
            )}
          </select>
          {changed && (
            <button type="submit" className="small" disabled={bind.busy}>
              {agentId ? 'Bind' : 'Unbind'}
            </button>
          )}
        </form>
        {candidates.length === 0 && !number.agentId && (
          <div className="hint">
            No inbound agent on this account yet: <Link to="/agents/new">create one</Link> with type Inbound and this
            credential.
          </div>
        )}
        <FormFailure failure={bind.failure} />
      </td>
      <td data-label="Provider sync">
        <Badge value={number.providerSync.state} />
        {number.providerSync.error && <div className="error">{number.providerSync.error}</div>}
      </td>
      <td data-label="">
        <ConfirmButton
          label="Delete"
          question={`Delete ${number.number}? Its provider stops answering it with the agent.`}
          confirmLabel="Yes, delete"
          danger
          busy={remove.busy}
          onConfirm={async () => {
            const done = await remove.run(() => api('DELETE', `/v1/phone-numbers/${encodeURIComponent(number.id)}`));
            if (done !== undefined) onChanged();
          }}
        />
        <FormFailure failure={remove.failure} />
      </td>
    </>
  );
}

/** Picks a credential, lists its account's numbers, and imports one, optionally answered by an agent. */
function ImportForm({
  credentials,
  agents,
  onDone,
}: {
  credentials: ProviderCredential[] | undefined;
  agents: Agent[];
  onDone: (imported: boolean) => void;
}) {
  const [credentialId, setCredentialId] = useState('');
  const [picked, setPicked] = useState('');
  const [agentId, setAgentId] = useState('');
  const create = useAction();
  const available = useLoad(
    async () => ({
      credentialId,
      numbers: credentialId
        ? (
            await api<{ data: ProviderPhoneNumber[] }>(
              'GET',
              `/v1/provider-credentials/${encodeURIComponent(credentialId)}/phone-numbers`,
            )
          ).data
        : [],
    }),
    credentialId,
  );
  // The list of the credential chosen now, not of one chosen before whose answer came late.
  const listed = available.data?.credentialId === credentialId ? available.data : undefined;
  const numbers = listed?.numbers ?? [];
  const chosen = numbers.find((number) => number.providerNumberId === picked);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await create.run(() =>
      api<PhoneNumber>('POST', '/v1/phone-numbers', {
        number: chosen?.number ?? '',
        providerCredentialId: credentialId,
        providerNumberId: chosen?.providerNumberId ?? '',
        ...(agentId ? { agentId } : {}),
      }),
    );
    if (created) onDone(true);
  }

  if (credentials !== undefined && credentials.length === 0) {
    return (
      <div className="nested">
        <p>
          Numbers are imported from a Vapi or Retell account: <Link to="/settings">add its credential in Settings</Link>{' '}
          first.
        </p>
        <button type="button" className="secondary" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    );
  }
  return (
    <form className="nested import-number" onSubmit={submit} aria-label="Import a number" noValidate>
      <h3>Import a number</h3>
      <div className="grid">
        <Field label="Provider account" path="$.providerCredentialId" failure={create.failure}>
          {(id) => (
            <select
              id={id}
              value={credentialId}
              onChange={(e) => {
                setCredentialId(e.target.value);
                setPicked('');
                setAgentId('');
              }}
            >
              <option value="">— choose a credential —</option>
              {(credentials ?? []).map((credential) => (
                <option key={credential.id} value={credential.id}>
                  {credential.name} ({credential.provider})
                </option>
              ))}
            </select>
          )}
        </Field>
        {credentialId && (
          <Field
            label="Number"
            path="$.providerNumberId"
            failure={create.failure}
            hint={
              listed && numbers.length === 0
                ? 'This account has no phone numbers: buy or import one at the provider first.'
                : undefined
            }
          >
            {(id) => (
              <select id={id} value={picked} onChange={(e) => setPicked(e.target.value)}>
                <option value="">{listed ? '— choose a number —' : 'Loading the account’s numbers…'}</option>
                {numbers.map((number) => (
                  <option
                    key={number.providerNumberId}
                    value={number.providerNumberId}
                    disabled={number.phoneNumberId !== null}
                  >
                    {number.number}
                    {number.name ? ` (${number.name})` : ''}
                    {number.phoneNumberId !== null ? ' — imported' : ''}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        {credentialId && (
          <Field label="Answered by" path="$.agentId" failure={create.failure} hint="Optional: bind it later.">
            {(id) => (
              <select id={id} value={agentId} onChange={(e) => setAgentId(e.target.value)}>
                <option value="">— no agent —</option>
                {answeringAgents(agents, credentialId).map((agent) => (
                  <option key={agent.id} value={agent.id}>
                    {agent.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
      </div>
      <FormFailure failure={available.failure} />
      <FormFailure failure={create.failure} />
      <div className="actions">
        <button type="submit" disabled={create.busy || !chosen}>
          {create.busy ? 'Importing…' : 'Import'}
        </button>
        <button type="button" className="secondary" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
