import { type Agent, api, type Call } from '../../api.js';
import { Link } from '../../router.js';
import { BackLink, Badge, Fact, FormFailure, formatTime, Loading, LongId, useLoad, usePolling } from '../../ui.js';
import './calls.css';
import { Deliveries } from './Deliveries.js';
import { DIRECTION_LABELS, formatDuration } from './format.js';
import { KeyValueTable, LiveIndicator, Panel } from './parts.js';
import { ToolInvocations } from './ToolInvocations.js';
import { Transcript } from './Transcript.js';

/** While a call is under way, or an outcome webhook is soon to be (re)sent: ask every second. */
const LIVE_POLL_MS = 1000;
/** A delivery waiting minutes or hours for its next retry: asking every second would be waste. */
const WAITING_POLL_MS = 10_000;
/**
 * How near a pending delivery's next attempt must be to count as "soon". A worker sending one moves
 * its next attempt a lease (50 s) ahead while it does, so anything within a minute may be under way.
 */
const SOON_MS = 60_000;

/** How long until the call is asked for again, or null once nothing about it can change by itself. */
export function pollDelay(call: Call, now = Date.now()): number | null {
  if (call.status !== 'ended') return LIVE_POLL_MS;
  const pending = call.deliveries.filter((delivery) => delivery.state === 'pending');
  if (pending.length === 0) return null;
  const soon = pending.some(
    (delivery) => delivery.nextAttemptAt === null || new Date(delivery.nextAttemptAt).getTime() - now < SOON_MS,
  );
  return soon ? LIVE_POLL_MS : WAITING_POLL_MS;
}

/** `/calls/:id` (the router's params are optional strings: a missing id is a call not found). */
export function CallDetail({ id }: { id?: string }) {
  return id ? <CallScreen id={id} /> : <CallNotFound id="" />;
}

function CallScreen({ id }: { id: string }) {
  const { data: call, failure, reload } = useLoad(() => api<Call>('GET', `/v1/calls/${encodeURIComponent(id)}`), id);
  const delay = call ? pollDelay(call) : null;
  usePolling(reload, delay, call, failure);

  if (!call) {
    if (failure?.status === 404) return <CallNotFound id={id} />;
    return failure ? <FormFailure failure={failure} /> : <Loading what="the call" />;
  }
  return (
    <>
      <BackLink to="/calls">Calls</BackLink>
      <FormFailure failure={failure} />
      <CallFacts call={call} live={delay !== null} />
      <CallReport call={call} />
      <section className="call-data">
        <Panel title="Variables">
          <KeyValueTable label="Variables" values={call.variables} none="No variables were sent with this call." />
        </Panel>
        <Panel title="Collected data">
          <KeyValueTable
            label="Collected data"
            values={call.collectedData ?? {}}
            none={call.status === 'ended' ? 'Nothing was collected.' : 'Collected data arrives when the call ends.'}
          />
        </Panel>
      </section>
      <Transcript turns={call.transcript} ended={call.status === 'ended'} />
      <ToolInvocations invocations={call.toolInvocations} />
      <Deliveries deliveries={call.deliveries} ended={call.status === 'ended'} onRetried={reload} />
    </>
  );
}

function CallNotFound({ id }: { id: string }) {
  return (
    <section className="card">
      <h2>Call not found</h2>
      <p>
        There is no call <code>{id}</code> in this organization. <Link to="/calls">Back to the calls</Link>
      </p>
    </section>
  );
}

function CallFacts({ call, live }: { call: Call; live: boolean }) {
  return (
    <Panel
      title={call.direction === 'inbound' ? <>Call from {call.from}</> : <>Call to {call.to}</>}
      actions={
        <span className="row">
          <Badge value={call.status} />
          {live && <LiveIndicator what="this call" />}
        </span>
      }
    >
      {call.error && (
        <div className="error banner" role="alert">
          <strong>Error:</strong> {call.error}
        </div>
      )}
      <dl className="facts">
        <Fact label="Direction">{DIRECTION_LABELS[call.direction] ?? call.direction}</Fact>
        <Fact label="Agent">
          <AgentLink id={call.agentId} />
        </Fact>
        <Fact label="From">{call.from}</Fact>
        <Fact label="To">{call.to}</Fact>
        <Fact label="Status">{call.status}</Fact>
        <Fact label="Outcome">{call.outcome ?? '—'}</Fact>
        <Fact label="Ended reason">{call.endedReason ?? '—'}</Fact>
        <Fact label="Placed">{formatTime(call.createdAt)}</Fact>
        <Fact label="Started">{formatTime(call.startedAt)}</Fact>
        <Fact label="Answered">{formatTime(call.answeredAt)}</Fact>
        <Fact label="Ended">{formatTime(call.endedAt)}</Fact>
        <Fact label="Duration">{formatDuration(call.durationSeconds)}</Fact>
        <Fact label="Provider">{call.provider}</Fact>
        <Fact label="Provider call id">
          {call.providerCallId ? <LongId value={call.providerCallId} label="Copy provider call id" /> : '—'}
        </Fact>
        <Fact label="Call id">
          <LongId value={call.id} label="Copy call id" />
        </Fact>
      </dl>
    </Panel>
  );
}

/**
 * What the provider said about the call once it ended: its summary, the recording (played from
 * where the provider keeps it, fetched only when played), and what its report held that could not
 * be kept as it was.
 */
function CallReport({ call }: { call: Call }) {
  const ended = call.status === 'ended';
  return (
    <>
      <Panel title="Summary">
        {call.summary ? (
          <p className="summary" data-testid="call-summary">
            {call.summary}
          </p>
        ) : (
          <p className="muted">{ended ? 'The provider gave no summary.' : 'The summary arrives when the call ends.'}</p>
        )}
        {call.recordingUrl && (
          <div className="recording">
            <h3>Recording</h3>
            {/* biome-ignore lint/a11y/useMediaCaption: a call recording has no captions; its transcript is below */}
            <audio controls preload="none" src={call.recordingUrl} aria-label="Call recording" />
            <a href={call.recordingUrl} target="_blank" rel="noreferrer noopener">
              Open the recording
            </a>
          </div>
        )}
      </Panel>
      {call.warnings.length > 0 && (
        <Panel title="Warnings">
          <p className="hint">What the end-of-call report held that could not be kept as it was.</p>
          <ul aria-label="Warnings" className="warnings">
            {call.warnings.map((warning, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: warnings can repeat; their order is the report's
              <li key={index}>{warning}</li>
            ))}
          </ul>
        </Panel>
      )}
    </>
  );
}

/** The agent by name, linked; a deleted agent (its calls stay) shows its id. */
function AgentLink({ id }: { id: string }) {
  const { data: agent } = useLoad(() => api<Agent>('GET', `/v1/agents/${encodeURIComponent(id)}`), id);
  return <Link to={`/agents/${id}`}>{agent?.name ?? id}</Link>;
}
