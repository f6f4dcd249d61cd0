import { useId, useState } from 'react';
import { type Agent, api, type Page, type ProviderTool, type ProviderToolImport, withQuery } from '../../api.js';
import { Link } from '../../router.js';
import { Empty, FormFailure, Loading, useAction, useLoad } from '../../ui.js';

const PROVIDER_NAMES: Record<string, string> = { vapi: 'Vapi', retell: 'Retell' };

/** The agents whose tools can be imported: on a real provider, with a credential to ask it with. */
async function providerAgents(): Promise<Agent[]> {
  const found: Agent[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<Agent> = await api<Page<Agent>>('GET', withQuery('/v1/agents', { limit: 100, cursor }));
    found.push(...page.data.filter((agent) => agent.provider !== 'simulator' && agent.providerCredentialId));
    cursor = page.nextCursor;
  } while (cursor);
  return found;
}

/** Importing tools defined at Vapi or Retell: they become organization tools attached to the agent. */
export function ProviderImport({ onImported }: { onImported: () => void }) {
  const { data: agents, failure } = useLoad(providerAgents, 'provider-agents');
  const [agentId, setAgentId] = useState('');
  const selectId = useId();
  const agent = agents?.find((a) => a.id === agentId);
  return (
    <section className="card" aria-label="Import from a provider">
      <h2>Import from your provider</h2>
      <FormFailure failure={failure} />
      {!agents ? (
        !failure && <Loading what="agents" />
      ) : agents.length === 0 ? (
        <Empty>
          No agent uses Vapi or Retell yet. Importing copies the tools you already defined at your voice provider, so it
          needs an agent on Vapi or Retell with a provider credential: add the credential in{' '}
          <Link to="/settings">Settings</Link>, then <Link to="/agents/new">create an agent</Link> that uses it.
        </Empty>
      ) : (
        <>
          <p className="hint">
            Pick an agent on Vapi or Retell to see the tools defined there. Imported tools are attached to that agent,
            and from then on Switchboard is their source of truth.
          </p>
          <div className="field">
            <label htmlFor={selectId}>Agent</label>
            <select id={selectId} value={agentId} onChange={(e) => setAgentId(e.target.value)}>
              <option value="">Choose an agent…</option>
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name} ({PROVIDER_NAMES[a.provider] ?? a.provider})
                </option>
              ))}
            </select>
          </div>
          {agent && <ProviderTools key={agent.id} agent={agent} onImported={onImported} />}
        </>
      )}
    </section>
  );
}

function ProviderTools({ agent, onImported }: { agent: Agent; onImported: () => void }) {
  const provider = PROVIDER_NAMES[agent.provider] ?? agent.provider;
  const { data, failure } = useLoad(
    () => api<{ data: ProviderTool[] }>('GET', `/v1/agents/${agent.id}/provider-tools`),
    agent.id,
  );
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [result, setResult] = useState<ProviderToolImport | null>(null);
  const importing = useAction();

  if (failure) return <FormFailure failure={failure} />;
  if (!data) return <Loading what={`the tools defined at ${provider}`} />;
  if (data.data.length === 0) {
    return <Empty>No tools are defined at {provider} for this agent: there is nothing to import.</Empty>;
  }
  const names = new Map(data.data.map((tool) => [tool.id, tool.name]));
  const toggle = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
  };
  const runImport = async () => {
    setResult(null);
    const answer = await importing.run(() =>
      api<ProviderToolImport>('POST', `/v1/agents/${agent.id}/provider-tools/import`, { providerToolIds: [...chosen] }),
    );
    if (!answer) return;
    setResult(answer);
    setChosen(new Set());
    if (answer.imported.length > 0) onImported();
  };

  return (
    <>
      {/* Five columns do not fit a phone: there each tool's cells stack under their column's name. */}
      <table className="stack" aria-label={`Tools at ${provider}`}>
        <thead>
          <tr>
            <th>Import</th>
            <th>Name</th>
            <th>Type</th>
            <th>Description</th>
            <th>Notes</th>
          </tr>
        </thead>
        <tbody>
          {data.data.map((tool) => (
            <tr key={tool.id}>
              <td data-label="Import">
                <input
                  type="checkbox"
                  aria-label={`Import ${tool.name}`}
                  disabled={!tool.importable || importing.busy}
                  checked={chosen.has(tool.id)}
                  onChange={(e) => toggle(tool.id, e.target.checked)}
                />
              </td>
              <td data-label="Name">
                <code>{tool.name}</code>
              </td>
              <td data-label="Type">{tool.type}</td>
              <td data-label="Description">{tool.description}</td>
              <td data-label={tool.problems.length + tool.warnings.length > 0 ? 'Notes' : ''}>
                {tool.problems.length > 0 && (
                  <div className="error">Cannot be imported: {tool.problems.join('; ')}</div>
                )}
                {tool.warnings.length > 0 && <div className="hint">{tool.warnings.join('; ')}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        <button
          type="button"
          onClick={runImport}
          disabled={chosen.size === 0 || importing.busy}
          aria-busy={importing.busy}
        >
          {importing.busy ? 'Importing…' : `Import selected (${chosen.size})`}
        </button>
      </div>
      <FormFailure failure={importing.failure} />
      {result && (
        <div className="notice" role="status" aria-label="Import result">
          {result.imported.length === 0 ? (
            <p>Nothing was imported.</p>
          ) : (
            <>
              <p>
                Imported {result.imported.length} tool{result.imported.length === 1 ? '' : 's'} and attached{' '}
                {result.imported.length === 1 ? 'it' : 'them'} to {agent.name}:
              </p>
              <ul>
                {result.imported.map((i) => (
                  <li key={i.toolId}>
                    <Link to={`/tools/${i.toolId}`}>{names.get(i.providerToolId) ?? i.toolId}</Link>
                    {i.warnings.length > 0 && <span className="hint"> — {i.warnings.join('; ')}</span>}
                  </li>
                ))}
              </ul>
            </>
          )}
          {result.skipped.length > 0 && (
            <>
              <p>Not imported:</p>
              <ul className="error">
                {result.skipped.map((s) => (
                  <li key={s.providerToolId}>
                    <code>{names.get(s.providerToolId) ?? s.providerToolId}</code>: {s.reasons.join('; ')}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </>
  );
}
