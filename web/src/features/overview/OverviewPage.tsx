import { type ReactNode, useId, useMemo } from 'react';
import { type Agent, api, type Call, type Page, withQuery } from '../../api.js';
import { Link, navigate, useLocation } from '../../router.js';
import { Empty, Fact, Field, FormFailure, Loaded, Loading, useLoad } from '../../ui.js';
import { Chart, type ChartSeries } from './Chart.js';
import './overview.css';
import {
  browserTimeZone,
  callsPath,
  dayText,
  overviewPath,
  PERIODS,
  type Period,
  type PeriodKey,
  periodFromQuery,
} from './period.js';
import {
  axisLabel,
  formatMs,
  formatPercent,
  formatSeconds,
  intervalEnds,
  intervalLabel,
  loadStats,
  outcomesOf,
  type Stats,
  type StatsBucket,
  statsPath,
  withoutOutcome,
} from './stats.js';

/** Colours for outcomes, in order of frequency; distinct enough side by side, readable on white. */
const OUTCOME_COLORS = ['#2f5bea', '#12b76a', '#f79009', '#7a5af8', '#ee46bc', '#0ba5ec', '#b42318', '#4e5ba6'];
const NO_OUTCOME_COLOR = '#98a2b3';
const DELIVERY_COLORS = { delivered: '#12b76a', failed: '#d92d20', pending: '#f79009' };

/**
 * `/overview?period=7d&agentId=…` (or `?from=2026-11-01&to=2026-11-24`): the organization's results at
 * a glance from GET /v1/stats, the period and the agent kept in the address so a link shows the same view.
 */
export function OverviewPage() {
  const { query } = useLocation();
  const queryText = query.toString();
  // Worked out once per address: "today" is the day the address was opened (or changed), not each render's.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the address's text is what the period depends on
  const period = useMemo(() => periodFromQuery(query), [queryText]);
  const agentId = query.get('agentId') ?? '';
  const timezone = browserTimeZone();
  const agents = useLoad(() => api<Page<Agent>>('GET', withQuery('/v1/agents', { limit: 100 })), 'agents');
  const statsQuery = { from: period.from, to: period.to, interval: period.interval, timezone, agentId };
  const path = statsPath(statsQuery);
  // Each answer carries the request it answers: until the new one is in, the figures shown are the
  // previous period's, and the page says it is busy rather than passing them off as the new ones.
  const stats = useLoad(async () => ({ path, stats: await loadStats(statsQuery) }), path);
  const busy = stats.data?.path !== path && !stats.failure;
  const agentList = agents.data?.data ?? [];

  return (
    <>
      <section className="card" aria-labelledby="overview-title">
        <div className="toolbar">
          <h2 id="overview-title">Overview</h2>
        </div>
        <OverviewFilters period={period} agentId={agentId} agents={agentList} />
        <p className="hint">Days and hours in your time zone ({timezone}). Each chart leads to the calls it counts.</p>
        <FormFailure failure={agents.failure} />
      </section>
      <div className="overview-results" aria-busy={busy}>
        <Loaded load={stats} what="the overview">
          {({ stats: data }) =>
            data.totals.calls === 0 ? (
              <NoCalls agentId={agentId} agents={agentList} period={period} />
            ) : (
              <OverviewBody stats={data} agentId={agentId} />
            )
          }
        </Loaded>
      </div>
    </>
  );
}

function OverviewFilters({ period, agentId, agents }: { period: Period; agentId: string; agents: Agent[] }) {
  const choose = (key: PeriodKey) =>
    navigate(overviewPath({ key, fromDay: period.fromDay, toDay: period.toDay }, agentId));
  const setDay = (which: 'fromDay' | 'toDay', value: string) => {
    // A date input is empty while a date is half typed; the address changes once it is a whole one.
    if (value) navigate(overviewPath({ ...period, key: 'custom', [which]: value }, agentId));
  };
  const knownAgent = agentId === '' || agents.some((agent) => agent.id === agentId);
  return (
    <div className="overview-filters">
      <fieldset className="periods">
        <legend>Period</legend>
        {PERIODS.map((option) => (
          <label key={option.key} className="inline">
            <input
              type="radio"
              name="overview-period"
              value={option.key}
              checked={period.key === option.key}
              onChange={() => choose(option.key)}
            />
            {option.label}
          </label>
        ))}
      </fieldset>
      {period.key === 'custom' && (
        <div className="custom-range">
          <Field label="From">
            {(id) => (
              <input
                id={id}
                type="date"
                value={period.fromDay}
                max={dayText(new Date())}
                onChange={(event) => setDay('fromDay', event.target.value)}
              />
            )}
          </Field>
          <Field label="To">
            {(id) => (
              <input
                id={id}
                type="date"
                value={period.toDay}
                onChange={(event) => setDay('toDay', event.target.value)}
              />
            )}
          </Field>
        </div>
      )}
      <Field label="Agent">
        {(id) => (
          <select id={id} value={agentId} onChange={(event) => navigate(overviewPath(period, event.target.value))}>
            <option value="">All agents</option>
            {agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
            {!knownAgent && <option value={agentId}>{agentId}</option>}
          </select>
        )}
      </Field>
    </div>
  );
}

/**
 * No calls in the period: an organization that never had one is told how calls come and where to
 * place a test call; one that has calls elsewhere is told to widen the period or the agent.
 */
function NoCalls({ agentId, agents, period }: { agentId: string; agents: Agent[]; period: Period }) {
  const anyCall = useLoad(() => api<Page<Call>>('GET', withQuery('/v1/calls', { limit: 1 })), 'any-call');
  if (!anyCall.data) return anyCall.failure ? <FormFailure failure={anyCall.failure} /> : <Loading what="calls" />;
  const first = agents[0];
  if (anyCall.data.data.length === 0) {
    return (
      <section className="card" aria-label="No calls yet">
        <Empty>
          <p>
            <strong>No calls yet.</strong> This page shows how your calls go: how many were answered, how many ended in
            each outcome, how long they lasted, how your tools and webhooks did. It fills in as soon as your agents
            place or take calls.
          </p>
          <p>
            {first ? (
              <>
                Try it now: open <Link to={`/agents/${first.id}`}>{first.name}</Link> and place a{' '}
                <strong>Test call</strong>.
              </>
            ) : (
              <>
                Start by <Link to="/agents/new">creating an agent</Link>, then place a <strong>Test call</strong> from
                its page.
              </>
            )}
          </p>
        </Empty>
      </section>
    );
  }
  return (
    <section className="card" aria-label="No calls in this period">
      <Empty>
        No calls {period.key === 'today' ? 'today' : 'in this period'}
        {agentId ? ' for this agent' : ''}.{' '}
        {agentId ? (
          <Link to={overviewPath(period, '')}>Show all agents</Link>
        ) : (
          <Link to={overviewPath({ key: '30d' }, agentId)}>Show the last 30 days</Link>
        )}
        {' or '}
        <Link to="/calls">see every call</Link>.
      </Empty>
    </section>
  );
}

function OverviewBody({ stats, agentId }: { stats: Stats; agentId: string }) {
  const outcomes = outcomesOf(stats);
  const colorOf = (outcome: string) => OUTCOME_COLORS[outcomes.indexOf(outcome) % OUTCOME_COLORS.length] ?? '#2f5bea';
  const ends = intervalEnds(stats);
  const per = stats.interval === 'hour' ? 'hour' : 'day';
  const labels = stats.intervals.map((bucket) => axisLabel(bucket.start, stats.interval, stats.timezone));
  const rowLabel = (index: number) =>
    intervalLabel(stats.intervals[index]?.start ?? stats.from, stats.interval, stats.timezone);
  const openInterval = (index: number) =>
    navigate(callsPath(stats.intervals[index]?.start ?? stats.from, ends[index] ?? stats.to, agentId));
  const allCalls = callsPath(stats.from, stats.to, agentId);
  const { totals } = stats;
  const bucket = (index: number): StatsBucket => stats.intervals[index] ?? totals;

  const noOutcome = stats.intervals.map(withoutOutcome);
  const callSeries: ChartSeries[] = [
    ...outcomes.map((outcome) => ({
      label: outcome,
      color: colorOf(outcome),
      values: stats.intervals.map((b) => b.byOutcome[outcome] ?? 0),
    })),
    ...(noOutcome.some((n) => n > 0) ? [{ label: 'No outcome yet', color: NO_OUTCOME_COLOR, values: noOutcome }] : []),
  ];
  const conversionSeries: ChartSeries[] = outcomes.map((outcome) => ({
    label: outcome,
    color: colorOf(outcome),
    // No answered call in an interval: no share to draw there (a gap, not a misleading 0%).
    values: stats.intervals.map((b) => (b.results.answered > 0 ? (b.conversion[outcome] ?? 0) * 100 : null)),
  }));
  const toolSeries: ChartSeries[] = [
    { label: 'p50 latency', color: '#2f5bea', values: stats.intervals.map((b) => b.tools.p50LatencyMs) },
    { label: 'p95 latency', color: '#7a5af8', values: stats.intervals.map((b) => b.tools.p95LatencyMs) },
    {
      label: 'Success rate',
      color: '#12b76a',
      axis: 'right',
      values: stats.intervals.map((b) => (b.tools.successRate === null ? null : b.tools.successRate * 100)),
    },
  ];
  const deliverySeries: ChartSeries[] = (['delivered', 'failed', 'pending'] as const).map((state) => ({
    label: state[0]?.toUpperCase() + state.slice(1),
    color: DELIVERY_COLORS[state],
    values: stats.intervals.map((b) => b.deliveries[state]),
  }));
  const percent = (value: number) => `${Math.round(value)}%`;
  const count = (value: number) => String(value);
  const outcomeCounts = (b: StatsBucket) =>
    outcomes.map((outcome) => `${outcome} ${b.byOutcome[outcome] ?? 0}`).join(', ');

  return (
    <>
      <Headline stats={stats} outcomes={outcomes} />
      <div className="chart-grid">
        <ChartCard
          title={`Calls per ${per}, by outcome`}
          callsLink={allCalls}
          headers={['Calls', ...outcomes, ...(noOutcome.some((n) => n > 0) ? ['No outcome yet'] : [])]}
          stats={stats}
          ends={ends}
          agentId={agentId}
          rowLabel={rowLabel}
          cells={(b) => [
            b.calls,
            ...outcomes.map((outcome) => b.byOutcome[outcome] ?? 0),
            ...(noOutcome.some((n) => n > 0) ? [withoutOutcome(b)] : []),
          ]}
        >
          <Chart
            name={`Calls per ${per}, by outcome`}
            summary={`${totals.calls} calls in the period${outcomes.length ? `: ${outcomeCounts(totals)}` : ''}.`}
            labels={labels}
            series={callSeries}
            kind="stacked-bars"
            left={{ format: count, integers: true }}
            describe={(i) =>
              `${rowLabel(i)}: ${bucket(i).calls} calls${outcomes.length ? ` (${outcomeCounts(bucket(i))})` : ''}`
            }
            onPick={openInterval}
          />
        </ChartCard>

        <ChartCard
          title="Conversion over time"
          note="Share of the answered calls that ended in each outcome."
          callsLink={allCalls}
          headers={['Answered', ...outcomes]}
          stats={stats}
          ends={ends}
          agentId={agentId}
          rowLabel={rowLabel}
          cells={(b) => [
            b.results.answered,
            ...outcomes.map((outcome) => (b.results.answered > 0 ? formatPercent(b.conversion[outcome] ?? 0) : '—')),
          ]}
        >
          <Chart
            name="Conversion over time"
            summary={`Of ${totals.results.answered} answered calls: ${
              outcomes.map((outcome) => `${outcome} ${formatPercent(totals.conversion[outcome] ?? 0)}`).join(', ') ||
              'none ended with an outcome'
            }.`}
            labels={labels}
            series={conversionSeries}
            kind="lines"
            left={{ format: percent, max: 100 }}
            describe={(i) =>
              `${rowLabel(i)}: ${bucket(i).results.answered} answered${
                bucket(i).results.answered > 0
                  ? ` (${outcomes.map((o) => `${o} ${formatPercent(bucket(i).conversion[o] ?? 0)}`).join(', ')})`
                  : ''
              }`
            }
            onPick={openInterval}
          />
        </ChartCard>

        <ChartCard
          title="Tool latency and success"
          note="Tool runs during the calls: p50 and p95 latency (left axis), success rate (right axis)."
          callsLink={allCalls}
          headers={['Runs', 'Succeeded', 'Failed', 'Success rate', 'p50 latency', 'p95 latency']}
          stats={stats}
          ends={ends}
          agentId={agentId}
          rowLabel={rowLabel}
          cells={(b) => [
            b.tools.runs,
            b.tools.succeeded,
            b.tools.failed,
            formatPercent(b.tools.successRate),
            formatMs(b.tools.p50LatencyMs),
            formatMs(b.tools.p95LatencyMs),
          ]}
        >
          <Chart
            name="Tool latency and success"
            summary={
              totals.tools.runs === 0
                ? 'No tool ran in the period.'
                : `${totals.tools.runs} tool runs, ${formatPercent(totals.tools.successRate)} succeeded; latency p50 ${formatMs(totals.tools.p50LatencyMs)}, p95 ${formatMs(totals.tools.p95LatencyMs)}.`
            }
            labels={labels}
            series={toolSeries}
            kind="lines"
            left={{ format: (ms) => `${Math.round(ms)} ms` }}
            right={{ format: percent, max: 100 }}
            describe={(i) =>
              bucket(i).tools.runs === 0
                ? `${rowLabel(i)}: no tool runs`
                : `${rowLabel(i)}: ${bucket(i).tools.runs} runs, ${formatPercent(bucket(i).tools.successRate)} succeeded, p50 ${formatMs(bucket(i).tools.p50LatencyMs)}, p95 ${formatMs(bucket(i).tools.p95LatencyMs)}`
            }
            onPick={openInterval}
          />
        </ChartCard>

        <ChartCard
          title="Delivery health"
          note="The calls' outcome webhooks: delivered, failed for good, or still being tried."
          callsLink={allCalls}
          headers={['Delivered', 'Failed', 'Pending']}
          stats={stats}
          ends={ends}
          agentId={agentId}
          rowLabel={rowLabel}
          cells={(b) => [b.deliveries.delivered, b.deliveries.failed, b.deliveries.pending]}
        >
          <Chart
            name="Delivery health"
            summary={`${totals.deliveries.delivered} delivered, ${totals.deliveries.failed} failed, ${totals.deliveries.pending} pending.`}
            labels={labels}
            series={deliverySeries}
            kind="stacked-bars"
            left={{ format: count, integers: true }}
            describe={(i) =>
              `${rowLabel(i)}: ${bucket(i).deliveries.delivered} delivered, ${bucket(i).deliveries.failed} failed, ${bucket(i).deliveries.pending} pending`
            }
            onPick={openInterval}
          />
        </ChartCard>
      </div>
    </>
  );
}

/** The period's totals, grouped as a team reads them: calls, conversion, duration, tools, webhooks. */
function Headline({ stats, outcomes }: { stats: Stats; outcomes: string[] }) {
  const { totals } = stats;
  const { results } = totals;
  return (
    <section className="card headline" aria-label="At a glance">
      <FactGroup title="Calls">
        <Fact label="Calls">{totals.calls}</Fact>
        <Fact label="Answered">{results.answered}</Fact>
        <Fact label="No answer">{results.noAnswer}</Fact>
        <Fact label="Busy">{results.busy}</Fact>
        <Fact label="Voicemail">{results.voicemail}</Fact>
        <Fact label="Failed">{results.failed}</Fact>
        <Fact label="Under way">{results.open}</Fact>
      </FactGroup>
      <FactGroup
        title="Conversion"
        note="Share of the answered calls that ended in each outcome."
        empty={outcomes.length === 0 ? <p className="muted">No call has ended with an outcome yet.</p> : undefined}
      >
        {outcomes.map((outcome) => (
          <Fact key={outcome} label={outcome}>
            {results.answered > 0 ? formatPercent(totals.conversion[outcome] ?? 0) : '—'}
            <span className="muted"> · {callCount(totals.byOutcome[outcome] ?? 0)}</span>
          </Fact>
        ))}
      </FactGroup>
      <div className="headline-groups">
        <FactGroup title="Duration" note="Of the answered calls that ended.">
          <Fact label="Average">{formatSeconds(totals.duration.averageSeconds)}</Fact>
          <Fact label="p90">{formatSeconds(totals.duration.p90Seconds)}</Fact>
        </FactGroup>
        <FactGroup title="Tools">
          <Fact label="Runs">{totals.tools.runs}</Fact>
          <Fact label="Success rate">{formatPercent(totals.tools.successRate)}</Fact>
          <Fact label="p50 latency">{formatMs(totals.tools.p50LatencyMs)}</Fact>
          <Fact label="p95 latency">{formatMs(totals.tools.p95LatencyMs)}</Fact>
        </FactGroup>
        <FactGroup title="Webhook deliveries">
          <Fact label="Delivered">{totals.deliveries.delivered}</Fact>
          <Fact label="Failed">{totals.deliveries.failed}</Fact>
          <Fact label="Pending">{totals.deliveries.pending}</Fact>
        </FactGroup>
      </div>
    </section>
  );
}

const callCount = (count: number) => (count === 1 ? '1 call' : `${count} calls`);

/** A titled group of headline figures, named by its title for assistive technology (and the tests). */
function FactGroup({
  title,
  note,
  empty,
  children,
}: {
  title: string;
  note?: string;
  /** Said instead of the figures when there are none. */
  empty?: ReactNode;
  children?: ReactNode;
}) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="fact-group">
      <h3 id={headingId}>{title}</h3>
      {note && <p className="hint">{note}</p>}
      {empty ?? <dl className="facts">{children}</dl>}
    </section>
  );
}

/**
 * A chart with what makes it usable without seeing it: its title as the section's name, the link to
 * the calls it counts, and its numbers per interval as a table (each interval linking to its calls).
 */
function ChartCard({
  title,
  note,
  callsLink,
  headers,
  stats,
  ends,
  agentId,
  rowLabel,
  cells,
  children,
}: {
  title: string;
  note?: string;
  callsLink: string;
  headers: string[];
  stats: Stats;
  ends: string[];
  agentId: string;
  rowLabel: (index: number) => string;
  cells: (bucket: StatsBucket) => ReactNode[];
  children: ReactNode;
}) {
  const headingId = useId();
  const per = stats.interval === 'hour' ? 'hour' : 'day';
  return (
    <section className="card chart-card" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      {note && <p className="hint">{note}</p>}
      {children}
      <p>
        <Link to={callsLink}>View these calls</Link>
      </p>
      <details>
        <summary>Numbers per {per}</summary>
        <div className="table-scroll">
          <table aria-label={`${title}: numbers per ${per}`} className="chart-data">
            <thead>
              <tr>
                <th scope="col">{per === 'hour' ? 'Hour' : 'Day'}</th>
                {headers.map((header) => (
                  <th key={header} scope="col">
                    {header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {stats.intervals.map((bucket, index) => (
                <tr key={bucket.start} data-start={bucket.start}>
                  <th scope="row">
                    <Link to={callsPath(bucket.start, ends[index] ?? stats.to, agentId)}>{rowLabel(index)}</Link>
                  </th>
                  {cells(bucket).map((cell, column) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a row's cells are its columns, in a fixed order
                    <td key={column}>{cell}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}
