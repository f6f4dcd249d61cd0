import { useEffect, useState } from 'react';
import { type Agent, api } from '../../api.js';
import { Link, navigate, useQueryState } from '../../router.js';
import {
  BackLink,
  Badge,
  ConfirmButton,
  countOf,
  Empty,
  Fact,
  Field,
  FormFailure,
  formatTime,
  Loading,
  LongId,
  Pager,
  useAction,
  useLoad,
  usePager,
  usePolling,
} from '../../ui.js';
import { LiveIndicator, Panel } from '../calls/parts.js';
import { justCreated } from './CampaignNew.js';
import { LIVE_POLL_MS } from './CampaignsPage.js';
import { ContactsUpload } from './ContactsUpload.js';
import { CampaignProgress, retryText, windowText } from './parts.js';
import { type Campaign, CONTACT_STATES, type Contact, type CountedPage, isLive, RESULT_LABELS } from './types.js';

const CONTACTS_PAGE_SIZE = 25;

/** `/campaigns/:id`: where a campaign's contacts are added, and where it is started, followed and stopped. */
export function CampaignPage({ id }: { id: string }) {
  const {
    data: campaign,
    failure,
    reload,
    setData,
  } = useLoad(() => api<Campaign>('GET', `/v1/campaigns/${encodeURIComponent(id)}`), id);
  const live = campaign ? isLive(campaign) : false;
  usePolling(reload, live ? LIVE_POLL_MS : null, campaign, failure);
  // Each change made here (contacts added, started, paused…) reloads the contacts too.
  const [version, setVersion] = useState(0);
  const [created] = useState(() => justCreated.id === id);
  useEffect(() => {
    justCreated.id = undefined;
  }, []);

  if (!campaign) {
    if (failure?.status === 404) {
      return (
        <section className="card">
          <h2>Campaign not found</h2>
          <p>
            There is no campaign <code>{id}</code> in this organization.{' '}
            <Link to="/campaigns">Back to the campaigns</Link>
          </p>
        </section>
      );
    }
    return failure ? <FormFailure failure={failure} /> : <Loading what="the campaign" />;
  }
  const changed = (next?: Campaign) => {
    if (next) setData(next);
    else reload();
    setVersion((v) => v + 1);
  };
  const canAdd = campaign.state === 'draft' || campaign.state === 'running' || campaign.state === 'paused';
  return (
    <>
      <BackLink to="/campaigns">Campaigns</BackLink>
      <FormFailure failure={failure} />
      {created && campaign.counts.total === 0 && (
        <div className="notice" role="status">
          Draft saved. Add its contacts from a CSV file below, then start it.
        </div>
      )}
      <CampaignHead campaign={campaign} live={live} onChanged={changed} />
      {canAdd && <ContactsUpload campaign={campaign} onAdded={() => changed()} />}
      <ContactsPanel campaign={campaign} live={live} version={version} />
      <SettingsPanel campaign={campaign} />
    </>
  );
}

/** The campaign's name, state, progress and counts, and what can be done to it in its state. */
function CampaignHead({
  campaign,
  live,
  onChanged,
}: {
  campaign: Campaign;
  live: boolean;
  onChanged: (next?: Campaign) => void;
}) {
  const action = useAction();
  const remove = useAction();
  const run = async (verb: 'start' | 'pause' | 'resume' | 'cancel') => {
    const next = await action.run(() => api<Campaign>('POST', `/v1/campaigns/${campaign.id}/${verb}`));
    if (next) onChanged(next);
    // A refusal (another tab paused it, its last contact just finished) says why; what it is now shows.
    else onChanged();
  };
  const { state, counts } = campaign;
  return (
    <Panel
      title={campaign.name}
      actions={
        <span className="row">
          <span className="campaign-state">
            <Badge value={state} />
          </span>
          {live && <LiveIndicator what="this campaign" />}
        </span>
      }
    >
      <CampaignProgress name={campaign.name} counts={counts} />
      <dl className="facts campaign-counts">
        <Fact label="Contacts">{counts.total.toLocaleString()}</Fact>
        {CONTACT_STATES.map((s) => (
          <Fact key={s.value} label={s.label}>
            {counts[s.value].toLocaleString()}
          </Fact>
        ))}
      </dl>
      <div className="actions campaign-actions">
        {state === 'draft' &&
          (counts.total > 0 ? (
            <button type="button" disabled={action.busy} onClick={() => run('start')}>
              Start
            </button>
          ) : (
            <span className="hint">Add contacts, then start the campaign.</span>
          ))}
        {state === 'running' && (
          <button type="button" className="secondary" disabled={action.busy} onClick={() => run('pause')}>
            Pause
          </button>
        )}
        {state === 'paused' && (
          <button type="button" disabled={action.busy} onClick={() => run('resume')}>
            Resume
          </button>
        )}
        {(state === 'draft' || state === 'running' || state === 'paused') && (
          <CancelCampaign busy={action.busy} onConfirm={() => run('cancel')} />
        )}
        {(state === 'draft' || state === 'completed' || state === 'cancelled') && (
          <ConfirmButton
            label="Delete"
            question="Delete this campaign? Its calls stay in the calls list."
            confirmLabel="Yes, delete"
            danger
            busy={remove.busy}
            onConfirm={async () => {
              const done = await remove.run(() => api<null>('DELETE', `/v1/campaigns/${campaign.id}`));
              if (done !== undefined) navigate('/campaigns');
            }}
          />
        )}
      </div>
      {state === 'paused' && (
        <p className="hint">Paused: no new call starts; calls already under way finish. Resume to go on.</p>
      )}
      <FormFailure failure={action.failure} />
      <FormFailure failure={remove.failure} />
    </Panel>
  );
}

/** Cancel asks first, and says what it does: the contacts not yet called are skipped for good. */
function CancelCampaign({ busy, onConfirm }: { busy: boolean; onConfirm: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" disabled={busy} onClick={() => setAsking(true)}>
        Cancel campaign
      </button>
    );
  }
  return (
    <span className="confirm campaign-confirm">
      <span>
        Cancel this campaign? Contacts not yet called are skipped; calls under way finish. This cannot be undone.
      </span>
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={async () => {
          await onConfirm();
          setAsking(false);
        }}
      >
        Yes, cancel it
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}

/**
 * The contacts, in the order they were added, with each attempt's call; filtered by state and paged
 * in the address (`?state=failed&cursor=…`), and refreshed by themselves while the campaign calls.
 */
function ContactsPanel({ campaign, live, version }: { campaign: Campaign; live: boolean; version: number }) {
  const [filters, setFilters] = useQueryState(['state'] as const);
  return (
    <Panel
      title="Contacts"
      actions={
        <a
          className="button secondary"
          href={`/v1/campaigns/${encodeURIComponent(campaign.id)}/results.csv`}
          download={`${campaign.id}-results.csv`}
        >
          Export results
        </a>
      }
    >
      <search className="campaign-filters" aria-label="Filter contacts">
        <Field label="Contact state">
          {(id) => (
            <select id={id} value={filters.state} onChange={(event) => setFilters({ state: event.target.value })}>
              <option value="">Any state</option>
              {CONTACT_STATES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label} ({campaign.counts[s.value].toLocaleString()})
                </option>
              ))}
            </select>
          )}
        </Field>
      </search>
      <ContactsTable key={filters.state} campaign={campaign} state={filters.state} live={live} version={version} />
    </Panel>
  );
}

function ContactsTable({
  campaign,
  state,
  live,
  version,
}: {
  campaign: Campaign;
  state: string;
  live: boolean;
  version: number;
}) {
  const pager = usePager({ inUrl: true });
  const { data, failure, reload } = useLoad(
    () => {
      const query = new URLSearchParams({ limit: String(CONTACTS_PAGE_SIZE) });
      if (state) query.set('state', state);
      if (pager.cursor) query.set('cursor', pager.cursor);
      return api<CountedPage<Contact>>('GET', `/v1/campaigns/${encodeURIComponent(campaign.id)}/contacts?${query}`);
    },
    // Loaded again when the counts change too: the last poll of a campaign that just completed shows its end.
    `${pager.cursor ?? ''}|${version}|${campaign.state}|${JSON.stringify(campaign.counts)}`,
  );
  usePolling(reload, live ? LIVE_POLL_MS : null, data, failure);

  if (!data) return failure ? <FormFailure failure={failure} /> : <Loading what="the contacts" />;
  if (data.data.length === 0 && pager.cursor === undefined) {
    if (state) {
      const label = CONTACT_STATES.find((s) => s.value === state)?.label.toLowerCase() ?? state;
      return (
        <Empty>
          No contact is {label}.{' '}
          <button type="button" className="link" onClick={() => navigate(`/campaigns/${campaign.id}`)}>
            Show every contact
          </button>
        </Empty>
      );
    }
    return (
      <Empty>No contacts yet. Upload a CSV file above: a header row with a phone column, one contact a row.</Empty>
    );
  }
  return (
    <>
      <FormFailure failure={failure} />
      {typeof data.total === 'number' && (
        <p className="list-total">
          {countOf(data.total, 'contact', 'contacts')}
          {state ? (data.total === 1 ? ' in this state' : ' in this state') : ''}
        </p>
      )}
      <div className="table-scroll">
        <table aria-label="Contacts" className="stack campaign-contacts">
          <thead>
            <tr>
              <th>Number</th>
              <th>State</th>
              <th>Attempts</th>
              <th>Last outcome</th>
              <th>Reason</th>
              <th>Next attempt</th>
              <th>Variables</th>
            </tr>
          </thead>
          <tbody>
            {data.data.map((contact) => (
              <tr key={contact.id}>
                <td data-label="Number">
                  {contact.phone}
                  {contact.timezone && <div className="hint">{contact.timezone}</div>}
                </td>
                <td data-label="State">
                  <span className="campaign-state">
                    <Badge value={contact.state} />
                  </span>
                </td>
                <td data-label="Attempts">
                  <Attempts contact={contact} />
                </td>
                <td data-label="Last outcome">{contact.lastOutcome ?? '—'}</td>
                <td data-label="Reason">{contact.reason ?? '—'}</td>
                <td data-label="Next attempt">
                  {contact.state === 'pending' || contact.state === 'retrying' ? formatTime(contact.dueAt) : '—'}
                </td>
                <td data-label="Variables" className="campaign-variables">
                  <Variables values={contact.variables} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager pager={pager} nextCursor={data.nextCursor} />
    </>
  );
}

/** Each attempt, linked to its call: "Attempt 1: no answer", "Attempt 2: calling". */
function Attempts({ contact }: { contact: Contact }) {
  if (contact.attempts.length === 0) return <span className="muted">none</span>;
  return (
    <ol className="campaign-attempts">
      {contact.attempts.map((attempt) => {
        const what =
          attempt.state === 'not_started'
            ? 'not started'
            : attempt.state === 'ended'
              ? [attempt.result ? RESULT_LABELS[attempt.result] : 'ended', attempt.outcome].filter(Boolean).join(', ')
              : 'calling';
        return (
          <li key={attempt.number}>
            <Link to={`/calls/${attempt.callId}`}>
              Attempt {attempt.number}: {what}
            </Link>
          </li>
        );
      })}
    </ol>
  );
}

function Variables({ values }: { values: Record<string, unknown> }) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="campaign-variable-list">
      {entries.map(([name, value]) => (
        <li key={name}>
          <code>{name}</code>: {typeof value === 'string' ? value : JSON.stringify(value)}
        </li>
      ))}
    </ul>
  );
}

/** The settings it was created with, to read; the agent by name. */
function SettingsPanel({ campaign }: { campaign: Campaign }) {
  const { data: agent } = useLoad(
    () => api<Agent>('GET', `/v1/agents/${encodeURIComponent(campaign.agentId)}`),
    campaign.agentId,
  );
  return (
    <Panel title="Settings">
      <dl className="facts">
        <Fact label="Agent">
          <Link to={`/agents/${campaign.agentId}`}>{agent?.name ?? campaign.agentId}</Link>
        </Fact>
        <Fact label="Calling hours">{windowText(campaign.window)}</Fact>
        <Fact label="Time zone">{campaign.timezone}</Fact>
        <Fact label="Calls at once">{campaign.concurrency.toLocaleString()}</Fact>
        <Fact label="Calls per minute">{campaign.callsPerMinute.toLocaleString()}</Fact>
        <Fact label="Calling again">{retryText(campaign.retry)}</Fact>
        <Fact label="Do-not-call outcomes">
          {campaign.doNotCallOutcomes.length > 0 ? campaign.doNotCallOutcomes.join(', ') : '—'}
        </Fact>
        <Fact label="Start at">{campaign.startAt ? formatTime(campaign.startAt) : 'When started'}</Fact>
        <Fact label="Created">{formatTime(campaign.createdAt)}</Fact>
        <Fact label="Started">{formatTime(campaign.startedAt)}</Fact>
        <Fact label="Ended">{formatTime(campaign.endedAt)}</Fact>
        <Fact label="Campaign id">
          <LongId value={campaign.id} label="Copy campaign id" />
        </Fact>
      </dl>
    </Panel>
  );
}
