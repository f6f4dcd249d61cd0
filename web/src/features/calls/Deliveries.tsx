import { useState } from 'react';
import { api, type Delivery, type DeliveryAttempt, type Integration } from '../../api.js';
import { Badge, CopyButton, Empty, Fact, FormFailure, formatTime, useAction, useLoad } from '../../ui.js';
import { Panel } from './parts.js';

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
    <table aria-label="Attempts" className="attempts">
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
            <td>{index + 1}</td>
            <td>{formatTime(attempt.at)}</td>
            <td>
              <HttpStatus status={attempt.status} />
            </td>
            <td>{attempt.latencyMs} ms</td>
            <td>
              {attempt.error ?? '—'}
              {attempt.errorCode && (
                <>
                  {' '}
                  <code>{attempt.errorCode}</code>
                </>
              )}
            </td>
            <td>{attempt.responseExcerpt ? <pre className="excerpt">{attempt.responseExcerpt}</pre> : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
