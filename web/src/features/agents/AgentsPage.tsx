import { AGENT_TYPE_LABELS, type Agent, api, type Page, withQuery } from '../../api.js';
import { Link } from '../../router.js';
import { Badge, Loaded, PagedTable, useLoad, usePager } from '../../ui.js';

/** What an agent's state comes to, in one word: disabled, not configured, or its provider sync. */
export function agentState(agent: Agent): string {
  if (!agent.enabled) return 'disabled';
  if (!agent.configured) return 'not configured';
  return agent.provider === 'simulator' ? 'ready' : agent.providerSync.state;
}

/** `/agents`, `/agents?cursor=…`: the page of the list is in the address, so a link shows the same view. */
export function AgentsPage() {
  const pager = usePager({ inUrl: true });
  const { data, failure } = useLoad(
    () => api<Page<Agent> & { total?: number }>('GET', withQuery('/v1/agents', { limit: 25, cursor: pager.cursor })),
    pager.cursor ?? '',
  );
  return (
    <section className="card">
      <div className="toolbar">
        <h2>Agents</h2>
        <Link to="/agents/new" className="button">
          New agent
        </Link>
      </div>
      <Loaded load={{ data, failure }} what="agents">
        {(page) => (
          <PagedTable
            page={page}
            pager={pager}
            noun={['agent', 'agents']}
            headers={['Name', 'Type', 'Provider', 'State']}
            empty={
              <>
                No agents yet. An agent places calls for you: <Link to="/agents/new">create one</Link>, choose the type{' '}
                <strong>Click to Call</strong>, and your backend can ask it to phone a lead.
              </>
            }
            cells={(agent) => (
              <>
                <td>
                  <Link to={`/agents/${agent.id}`}>{agent.name}</Link>
                </td>
                <td>{AGENT_TYPE_LABELS[agent.type]}</td>
                <td>{agent.provider}</td>
                <td>
                  <Badge value={agentState(agent)} />
                </td>
              </>
            )}
          />
        )}
      </Loaded>
    </section>
  );
}
