import { type KeyboardEvent, useState } from 'react';
import { type Agent, api, type Call, type Page, withQuery } from '../../api.js';
import { Link, navigate, useQueryState } from '../../router.js';
import {
  Badge,
  Empty,
  Field,
  FormFailure,
  formatTime,
  Loading,
  Pager,
  totalText,
  useLoad,
  usePager,
  usePolling,
} from '../../ui.js';
import './calls.css';
import {
  CALL_SORTS,
  CALL_STATUSES,
  type CallSort,
  DIRECTION_LABELS,
  deliveriesSummary,
  formatDuration,
  fromLocalInput,
  toLocalInput,
} from './format.js';
import { LiveIndicator } from './parts.js';

const PAGE_SIZE = 25;
/** How often a list with calls still under way asks again. */
const LIST_POLL_MS = 2000;

/**
 * The list's filters and sort, under the API's own query names (`GET /v1/calls`), in the order they
 * are written into the address. An empty `sort` is the API's default, newest first.
 */
const FILTER_NAMES = ['agentId', 'status', 'outcome', 'direction', 'since', 'until', 'phone', 'sort'] as const;
type CallFilters = Record<(typeof FILTER_NAMES)[number], string>;
type SetFilters = (changes: Partial<CallFilters>) => void;

/**
 * `/calls?agentId=…&outcome=…&since=…`: the filters live in the address, so reload, back and links
 * (the Overview's charts link here) keep them; the paging cursor too, once past the first page.
 */
export function CallsPage() {
  const [filters, setFilters] = useQueryState(FILTER_NAMES);
  // One request for the agents' names and the filter's options; past 100 agents a row shows the id.
  const agents = useLoad(() => api<Page<Agent>>('GET', withQuery('/v1/agents', { limit: 100 })), 'agents');
  const agentNames = new Map((agents.data?.data ?? []).map((agent) => [agent.id, agent.name]));
  return (
    <section className="card">
      <div className="toolbar">
        <h2>Calls</h2>
        {/* The same filters and sort as the list, without a cursor: every matching call, not this page. */}
        <a className="button secondary" href={withQuery('/v1/calls/export.csv', filters)} download>
          Export CSV
        </a>
      </div>
      <FiltersBar filters={filters} setFilters={setFilters} agents={agents.data?.data ?? []} />
      <FormFailure failure={agents.failure} />
      {/* Keyed by the filters: another filter is another list, loaded from its first page. */}
      <CallsTable
        key={FILTER_NAMES.map((name) => filters[name]).join('|')}
        filters={filters}
        setFilters={setFilters}
        agentNames={agentNames}
      />
    </section>
  );
}

function FiltersBar({
  filters,
  setFilters,
  agents,
}: {
  filters: CallFilters;
  setFilters: SetFilters;
  agents: Agent[];
}) {
  const knownAgent = filters.agentId === '' || agents.some((agent) => agent.id === filters.agentId);
  // The outcomes worth suggesting: the chosen agent's, else every agent's; any other text still filters.
  const outcomes = [
    ...new Set(agents.filter((agent) => !filters.agentId || agent.id === filters.agentId).flatMap((a) => a.outcomes)),
  ];
  const filtered = FILTER_NAMES.some((name) => name !== 'sort' && filters[name] !== '');
  return (
    <search className="call-filters" aria-label="Filter calls">
      <Field label="Agent">
        {(id) => (
          <select id={id} value={filters.agentId} onChange={(event) => setFilters({ agentId: event.target.value })}>
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
          <select id={id} value={filters.status} onChange={(event) => setFilters({ status: event.target.value })}>
            <option value="">Any status</option>
            {CALL_STATUSES.map((status) => (
              <option key={status.value} value={status.value}>
                {status.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Outcome">
        {(id) => (
          <>
            <TextFilter
              id={id}
              value={filters.outcome}
              onCommit={(outcome) => setFilters({ outcome })}
              list={`${id}-outcomes`}
              placeholder="Any outcome"
            />
            <datalist id={`${id}-outcomes`}>
              {outcomes.map((outcome) => (
                <option key={outcome} value={outcome} />
              ))}
            </datalist>
          </>
        )}
      </Field>
      <Field label="Direction">
        {(id) => (
          <select id={id} value={filters.direction} onChange={(event) => setFilters({ direction: event.target.value })}>
            <option value="">Both directions</option>
            {Object.entries(DIRECTION_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Number starts with">
        {(id) => (
          <TextFilter
            id={id}
            value={filters.phone}
            onCommit={(phone) => setFilters({ phone })}
            placeholder="+1555"
            inputMode="tel"
          />
        )}
      </Field>
      <Field label="From">
        {(id) => <MomentFilter id={id} value={filters.since} onCommit={(since) => setFilters({ since })} />}
      </Field>
      <Field label="Until">
        {(id) => <MomentFilter id={id} value={filters.until} onCommit={(until) => setFilters({ until })} />}
      </Field>
      <Field label="Sort">
        {(id) => (
          <select id={id} value={filters.sort} onChange={(event) => setFilters({ sort: event.target.value })}>
            {CALL_SORTS.map((sort) => (
              <option key={sort.value} value={sort.value === '-createdAt' ? '' : sort.value}>
                {sort.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {filtered && (
        <button type="button" className="secondary clear-filters" onClick={() => navigate(sortedOnly(filters))}>
          Clear filters
        </button>
      )}
    </search>
  );
}

/** `/calls`, keeping only the sort: what "Clear filters" and "Show all calls" lead to. */
function sortedOnly(filters: CallFilters): string {
  return withQuery('/calls', { sort: filters.sort });
}

/**
 * A typed filter (outcome, number, a moment): applied on Enter or when the field is left, not at
 * every key, so typing "+1555" asks for one list, not five, and a date half typed asks for none.
 */
function TextFilter({
  id,
  value,
  onCommit,
  list,
  placeholder,
  inputMode,
  type,
  toField = (text) => text,
  fromField = (text) => text.trim(),
}: {
  id: string;
  value: string;
  onCommit: (value: string) => void;
  list?: string;
  placeholder?: string;
  inputMode?: 'tel';
  type?: 'datetime-local';
  /** The address's value as the field shows it, and back. */
  toField?: (value: string) => string;
  fromField?: (text: string) => string;
}) {
  const [draft, setDraft] = useState(() => toField(value));
  const [shown, setShown] = useState(value);
  // The address changed under the field (Back, "Clear filters", a link): show the address's value.
  if (shown !== value) {
    setShown(value);
    setDraft(toField(value));
  }
  const commit = () => {
    // Untouched, a value from a link keeps its exact instant (seconds and all).
    if (draft === toField(value)) return;
    onCommit(fromField(draft));
  };
  return (
    <input
      id={id}
      type={type}
      value={draft}
      list={list}
      placeholder={placeholder}
      inputMode={inputMode}
      onChange={(event) => setDraft(event.target.value)}
      onBlur={commit}
      onKeyDown={(event: KeyboardEvent<HTMLInputElement>) => {
        if (event.key === 'Enter') commit();
      }}
    />
  );
}

/** A moment as the person's local date and time, kept in the address as the API's ISO instant. */
function MomentFilter({ id, value, onCommit }: { id: string; value: string; onCommit: (value: string) => void }) {
  return (
    <TextFilter
      id={id}
      type="datetime-local"
      value={value}
      onCommit={onCommit}
      toField={toLocalInput}
      fromField={fromLocalInput}
    />
  );
}

function CallsTable({
  filters,
  setFilters,
  agentNames,
}: {
  filters: CallFilters;
  setFilters: SetFilters;
  agentNames: Map<string, string>;
}) {
  const pager = usePager({ inUrl: true });
  const { data, failure, reload } = useLoad(
    () =>
      api<Page<Call> & { total?: number; totalCapped?: boolean }>(
        'GET',
        withQuery('/v1/calls', { ...filters, cursor: pager.cursor, limit: PAGE_SIZE }),
      ),
    pager.cursor ?? '',
  );
  const live = data?.data.some((call) => call.status !== 'ended') ?? false;
  usePolling(reload, live ? LIST_POLL_MS : null, data, failure);
  const filtered = FILTER_NAMES.some((name) => name !== 'sort' && filters[name] !== '');
  const sort = (filters.sort || '-createdAt') as CallSort;

  if (!data) return failure ? <FormFailure failure={failure} /> : <Loading what="calls" />;
  if (data.data.length === 0 && pager.cursor === undefined) {
    return filtered ? (
      <Empty>
        No calls match these filters.{' '}
        <button type="button" className="link" onClick={() => navigate(sortedOnly(filters))}>
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
  const onSort = (next: CallSort) => setFilters({ sort: next === '-createdAt' ? '' : next });
  return (
    <>
      <FormFailure failure={failure} />
      {typeof data.total === 'number' && (
        <p className="list-total" aria-live="polite">
          {/* The API stops counting at 10,000 (decision 0053): "10,000+ calls". */}
          {totalText(data.total, data.totalCapped, ['call', 'calls'])}
          {filtered ? (data.total === 1 && !data.totalCapped ? ' matches these filters' : ' match these filters') : ''}
        </p>
      )}
      {live && <LiveIndicator what="this list" />}
      <div className="table-scroll">
        <table aria-label="Calls" className="stack">
          <thead>
            <tr>
              <SortHeader label="Date" field="createdAt" sort={sort} onSort={onSort} />
              <th>Agent</th>
              <th>Direction</th>
              <th>Number</th>
              <th>Status</th>
              <th>Outcome</th>
              <SortHeader label="Duration" field="durationSeconds" sort={sort} onSort={onSort} />
              <th>Deliveries</th>
            </tr>
          </thead>
          <tbody>
            {data.data.map((call) => (
              <tr key={call.id}>
                <td data-label="Date">
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
      </div>
      <Pager pager={pager} nextCursor={data.nextCursor} />
    </>
  );
}

/**
 * A column the list can be sorted by: its header is a button, and `aria-sort` on the `th` says how
 * the list is sorted now. Pressed, it sorts by its column, largest first, then reverses.
 */
function SortHeader({
  label,
  field,
  sort,
  onSort,
}: {
  label: string;
  field: 'createdAt' | 'durationSeconds';
  sort: CallSort;
  onSort: (sort: CallSort) => void;
}) {
  const state = sort === field ? 'ascending' : sort === `-${field}` ? 'descending' : 'none';
  return (
    <th aria-sort={state}>
      <button
        type="button"
        className="sort-header"
        onClick={() => onSort(state === 'descending' ? field : `-${field}`)}
      >
        {label}
        <span aria-hidden="true">{state === 'ascending' ? ' ↑' : state === 'descending' ? ' ↓' : ' ↕'}</span>
      </button>
    </th>
  );
}
