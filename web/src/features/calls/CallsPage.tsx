import { type Agent, api, type Call, type Page, withQuery } from '../../api.js';
import { Link, navigate, useLocation } from '../../router.js';
import {
  Badge,
  Empty,
  Field,
  FormFailure,
  formatTime,
  Loading,
  Pager,
  useLoad,
  usePager,
  usePolling,
} from '../../ui.js';
import './calls.css';
import { CALL_STATUSES, DIRECTION_LABELS, deliveriesSummary, formatDuration } from './format.js';
import { LiveIndicator } from './parts.js';

const PAGE_SIZE = 25;
/** How often a list with calls still under way asks again. */
const LIST_POLL_MS = 2000;

interface CallFilters {
  agentId: string;
  status: string;
}

/** `/calls?agentId=…&status=…`: the filters live in the address, so reload, back and links keep them. */
export function CallsPage() {
  const { query } = useLocation();
  const filters: CallFilters = { agentId: query.get('agentId') ?? '', status: query.get('status') ?? '' };
  // One request for the agents' names and the filter's options; past 100 agents a row shows the id.
  const agents = useLoad(() => api<Page<Agent>>('GET', withQuery('/v1/agents', { limit: 100 })), 'agents');
  const agentNames = new Map((agents.data?.data ?? []).map((agent) => [agent.id, agent.name]));
  return (
    <section className="card">
      <div className="toolbar">
        <h2>Calls</h2>
      </div>
      <FiltersBar filters={filters} agents={agents.data?.data ?? []} />
      <FormFailure failure={agents.failure} />
      {/* Keyed by the filters: a new filter starts again at page 1. */}
      <CallsTable key={`${filters.agentId}|${filters.status}`} filters={filters} agentNames={agentNames} />
    </section>
  );
}

function FiltersBar({ filters, agents }: { filters: CallFilters; agents: Agent[] }) {
  const change = (next: Partial<CallFilters>) => navigate(withQuery('/calls', { ...filters, ...next }));
  const knownAgent = filters.agentId === '' || agents.some((agent) => agent.id === filters.agentId);
  return (
    <div className="call-filters">
      <Field label="Agent">
        {(id) => (
          <select id={id} value={filters.agentId} onChange={(event) => change({ agentId: event.target.value })}>
            <option value="">All agents</option>
            {agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
            {!knownAgent && <option value={filters.agentId}>{filters.agentId}</option>}
          </select>
        )}
      </Field>
      <Field label="Status">
        {(id) => (
          <select id={id} value={filters.status} onChange={(event) => change({ status: event.target.value })}>
            <option value="">Any status</option>
            {CALL_STATUSES.map((status) => (
              <option key={status.value} value={status.value}>
                {status.label}
              </option>
            ))}
          </select>
        )}
      </Field>
    </div>
  );
}

function CallsTable({ filters, agentNames }: { filters: CallFilters; agentNames: Map<string, string> }) {
  const pager = usePager();
  const { data, failure, reload } = useLoad(
    () => api<Page<Call>>('GET', withQuery('/v1/calls', { ...filters, cursor: pager.cursor, limit: PAGE_SIZE })),
    pager.cursor ?? '',
  );
  const live = data?.data.some((call) => call.status !== 'ended') ?? false;
  usePolling(reload, live ? LIST_POLL_MS : null, data, failure);
  const filtered = filters.agentId !== '' || filters.status !== '';

  if (!data) return failure ? <FormFailure failure={failure} /> : <Loading what="calls" />;
  if (data.data.length === 0 && pager.page === 1) {
    return filtered ? (
      <Empty>
        No calls match these filters.{' '}
        <button type="button" className="link" onClick={() => navigate('/calls')}>
          Show all calls
        </button>
      </Empty>
    ) : (
      <Empty>
        No calls yet. A call appears here as soon as it is placed or taken: when your backend asks a{' '}
        <strong>Click to Call</strong> agent to phone a lead (a signed <code>POST /api/click-to-call</code>, see the
        agent's <strong>Show Credentials & Instructions</strong>), when an API client starts one with{' '}
        <code>POST /v1/calls</code>, when someone rings a number bound to an <strong>Inbound</strong> agent, or when you
        press <strong>Test call</strong> (or <strong>Simulate an incoming call</strong>) on an agent's page.{' '}
        <Link to="/agents">Go to your agents</Link>.
      </Empty>
    );
  }
  return (
    <>
      <FormFailure failure={failure} />
      {live && <LiveIndicator what="this list" />}
      <table aria-label="Calls" className="stack">
        <thead>
          <tr>
            <th>When</th>
            <th>Agent</th>
            <th>Direction</th>
            <th>Number</th>
            <th>Status</th>
            <th>Outcome</th>
            <th>Duration</th>
            <th>Deliveries</th>
          </tr>
        </thead>
        <tbody>
          {data.data.map((call) => (
            <tr key={call.id}>
              <td data-label="When">
                <Link to={`/calls/${call.id}`}>{formatTime(call.createdAt)}</Link>
              </td>
              <td data-label="Agent">{agentNames.get(call.agentId) ?? <code>{call.agentId}</code>}</td>
              <td data-label="Direction">{DIRECTION_LABELS[call.direction] ?? call.direction}</td>
              <td data-label="Number">{call.direction === 'inbound' ? call.from : call.to}</td>
              <td data-label="Status">
                <Badge value={call.status} />
              </td>
              <td data-label="Outcome">{call.outcome ?? '—'}</td>
              <td data-label="Duration">{formatDuration(call.durationSeconds)}</td>
              <td data-label="Deliveries">{deliveriesSummary(call.deliveries)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={data.nextCursor} />
    </>
  );
}
