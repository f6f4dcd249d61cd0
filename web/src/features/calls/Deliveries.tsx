import { useState } from 'react';
import { api, type Delivery, type DeliveryAttempt, type Integration, type Page, withQuery } from '../../api.js';
import { Preformatted } from '../../http-exchange.js';
import { Link, useQueryState } from '../../router.js';
import {
  Badge,
  CopyButton,
  Empty,
  Fact,
  Field,
  FormFailure,
  formatTime,
  Loaded,
  PagedTable,
  useAction,
  useLoad,
  usePager,
} from '../../ui.js';
import { Panel } from './parts.js';

const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
/** The list's filters under the API's own query names (`GET /v1/deliveries`), in the address's order. */
const DELIVERY_FILTERS = ['integrationId', 'callId', 'state'] as const;

/**
 * `/deliveries?integrationId=…&state=failed`: webhook deliveries across calls, newest first; the
 * filters and the page are in the address, so a link (each webhook's "Delivery log") shows the same view.
 */
export function DeliveriesPage() {
  const [filters, setFilters] = useQueryState(DELIVERY_FILTERS);
  const pager = usePager({ inUrl: true });
  const { data, failure } = useLoad(
    () =>
      api<Page<Delivery> & { total?: number; totalCapped?: boolean }>(
        'GET',
        withQuery('/v1/deliveries', { ...filters, cursor: pager.cursor, limit: 25 }),
      ),
    [...DELIVERY_FILTERS.map((name) => filters[name]), pager.cursor ?? ''].join('|'),
  );
  // Each webhook's address, read once for the page rather than once a row.
  const integrationIds = [...new Set((data?.data ?? []).map((delivery) => delivery.integrationId))].sort();
  const integrations = useLoad(
    () =>
      Promise.all(
        integrationIds.map((id) =>
          api<Integration>('GET', `/v1/integrations/${encodeURIComponent(id)}`).catch(() => undefined),
        ),
      ),
    integrationIds.join(','),
  );
  const urls = new Map(
    (integrations.data ?? []).flatMap((integration) => (integration ? [[integration.id, integration.url]] : [])),
  );
  const filtered = DELIVERY_FILTERS.some((name) => filters[name] !== '');
  return (
    <section className="card">
      <div className="toolbar">
        <h2>Deliveries</h2>
      </div>
      <search className="call-filters" aria-label="Filter deliveries">
        <Field label="State">
          {(id) => (
            <select id={id} value={filters.state} onChange={(event) => setFilters({ state: event.target.value })}>
              <option value="">Any state</option>
              {DELIVERY_STATES.map((state) => (
                <option key={state} value={state}>
                  {state}
                </option>
              ))}
            </select>
          )}
        </Field>
      </search>
      {(filters.integrationId || filters.callId) && (
        <p className="row">
          {filters.integrationId && (
            <span>
              To <IntegrationUrl id={filters.integrationId} />{' '}
              <button type="button" className="link" onClick={() => setFilters({ integrationId: '' })}>
                Every webhook
              </button>
            </span>
          )}
          {filters.callId && (
            <span>
              Of the call <Link to={`/calls/${encodeURIComponent(filters.callId)}`}>{filters.callId}</Link>{' '}
              <button type="button" className="link" onClick={() => setFilters({ callId: '' })}>
                Every call
              </button>
            </span>
          )}
        </p>
      )}
      <Loaded load={{ data, failure }} what="deliveries">
        {(page) => (
          <PagedTable
            page={page}
            pager={pager}
            noun={['delivery', 'deliveries']}
            className="stack"
            headers={['Created', 'Webhook', 'Call', 'State', 'Attempts', 'Last answer', 'Next attempt']}
            empty={
              filtered
                ? 'No deliveries match these filters.'
                : 'No deliveries yet. When a call ends, its outcome is sent to each of its agent’s webhook integrations whose trigger conditions it matches: each of those sendings is a delivery, listed here with its attempts.'
            }
            cells={(delivery) => (
              <>
                <td data-label="Created">{formatTime(delivery.createdAt)}</td>
                <td data-label="Webhook">
                  <code>{urls.get(delivery.integrationId) ?? delivery.integrationId}</code>
                </td>
                <td data-label="Call">
                  <Link to={`/calls/${delivery.callId}`}>{delivery.callId}</Link>
                </td>
                <td data-label="State">
                  <Badge value={delivery.state} />
                </td>
                <td data-label="Attempts">{delivery.attemptCount}</td>
                <td data-label="Last answer">
                  {delivery.attempts.length === 0 ? (
                    '—'
                  ) : (
                    <HttpStatus status={delivery.attempts.at(-1)?.status ?? null} />
                  )}
                </td>
                <td data-label="Next attempt">{nextAttempt(delivery)}</td>
              </>
            )}
          />
        )}
      </Loaded>
    </section>
  );
}

/** The call's outcome webhooks: one delivery per integration, each with its whole attempt log. */
export function Deliveries({
  deliveries,
  ended,
  onRetried,
}: {
  deliveries: Delivery[];
  ended: boolean;
  onRetried: () => void;
}) {
  return (
    <Panel title="Deliveries">
      {deliveries.length === 0 ? (
        <Empty>
          {ended
            ? 'No webhook was sent for this call: its agent has no enabled integration whose trigger conditions it matched.'
            : 'When the call ends, its outcome is sent to each of the agent’s webhook integrations and shows here.'}
        </Empty>
      ) : (
        deliveries.map((delivery) => <DeliveryCard key={delivery.id} delivery={delivery} onRetried={onRetried} />)
      )}
    </Panel>
  );
}

function DeliveryCard({ delivery, onRetried }: { delivery: Delivery; onRetried: () => void }) {
  const retry = useAction();
  /** How many attempts the delivery had when a retry was accepted: the next one is the retry's. */
  const [attemptsBeforeRetry, setAttemptsBeforeRetry] = useState<number | null>(null);
  const press = async () => {
    setAttemptsBeforeRetry(null);
    const before = delivery.attempts.length;
    const accepted = await retry.run(() => api<Delivery>('POST', `/v1/deliveries/${delivery.id}/retry`));
    if (!accepted) return;
    setAttemptsBeforeRetry(before);
    // Ask now rather than at the next tick: the delivery is pending again, so the call page follows it.
    onRetried();
  };
  return (
    <article className="delivery" aria-label={`Delivery ${delivery.id}`}>
      <div className="toolbar">
        <h3>
          <IntegrationUrl id={delivery.integrationId} />
        </h3>
        <span className="row">
          <Badge value={delivery.state} />
          <button type="button" className="secondary small" onClick={press} disabled={retry.busy}>
            {retry.busy ? 'Retrying…' : 'Retry'}
          </button>
        </span>
      </div>
      {attemptsBeforeRetry !== null && (
        <p className="notice" role="status">
          {delivery.attempts.length > attemptsBeforeRetry
            ? `Sent again with the same webhook-id: attempt ${attemptsBeforeRetry + 1} is below.`
            : 'Sent again with the same webhook-id: waiting for the attempt…'}
        </p>
      )}
      <FormFailure failure={retry.failure} />
      <dl className="facts">
        <Fact label="webhook-id">
          <code>{delivery.webhookId}</code> <CopyButton text={delivery.webhookId} label="Copy webhook-id" />
        </Fact>
        <Fact label="Next attempt">{nextAttempt(delivery)}</Fact>
        <Fact label="Payload">{delivery.payloadTruncated ? 'cut to fit 256 KiB (transcript first)' : 'complete'}</Fact>
        {delivery.failureReason && (
          <Fact label="Failure reason">
            <span className="error">{delivery.failureReason}</span>
          </Fact>
        )}
      </dl>
      <Attempts attempts={delivery.attempts} />
    </article>
  );
}

function nextAttempt(delivery: Delivery): string {
  if (delivery.state !== 'pending') return '—';
  return delivery.nextAttemptAt ? formatTime(delivery.nextAttemptAt) : 'now';
}

/** A receiver's answer: 2xx counts as delivered (green), anything else as a failure. */
function HttpStatus({ status }: { status: number | null }) {
  if (status === null) return <span className="muted">no answer</span>;
  const delivered = status >= 200 && status < 300;
  return <span className={`badge ${delivered ? 'badge-delivered' : 'badge-failed'}`}>{status}</span>;
}

/** The integration's address, the name a person knows it by; its id if it cannot be read. */
function IntegrationUrl({ id }: { id: string }) {
  const { data } = useLoad(() => api<Integration>('GET', `/v1/integrations/${encodeURIComponent(id)}`), id);
  return <code>{data?.url ?? id}</code>;
}

function Attempts({ attempts }: { attempts: DeliveryAttempt[] }) {
  if (attempts.length === 0) return <p className="muted">No attempt has been made yet.</p>;
  return (
    // At a phone's width each attempt's cells stack under their column's name (the six columns need 460 px).
    <table aria-label="Attempts" className="attempts stack">
      <thead>
        <tr>
          <th>#</th>
          <th>Time</th>
          <th>HTTP status</th>
          <th>Latency</th>
          <th>Error</th>
          <th>Response</th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((attempt, index) => (
          // An attempt log only grows at the end: the position is the attempt's number.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <tr key={index}>
            <td data-label="#">{index + 1}</td>
            <td data-label="Time">{formatTime(attempt.at)}</td>
            <td data-label="HTTP status">
              <HttpStatus status={attempt.status} />
            </td>
            <td data-label="Latency">{attempt.latencyMs} ms</td>
            <td data-label="Error">
              {attempt.error ?? '—'}
              {attempt.errorCode && (
                <>
                  {' '}
                  <code>{attempt.errorCode}</code>
                </>
              )}
            </td>
            <td data-label="Response">
              {/* Focusable: a long excerpt scrolls, and the keyboard must be able to scroll it. */}
              {attempt.responseExcerpt ? (
                <Preformatted className="excerpt">{attempt.responseExcerpt}</Preformatted>
              ) : (
                '—'
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
