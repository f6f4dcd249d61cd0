import { type Agent, api, type Page, withQuery } from '../../api.js';
import { Link, navigate, useQueryState } from '../../router.js';
import {
  Badge,
  countOf,
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
import { LiveIndicator } from '../calls/parts.js';
import { CampaignProgress } from './parts.js';
import { CAMPAIGN_STATES, type Campaign, type CountedPage } from './types.js';

const PAGE_SIZE = 25;
/** How often a list with a running campaign asks again: its progress bars move by themselves. */
export const LIVE_POLL_MS = 2000;
const FILTER_NAMES = ['state'] as const;

/** `/campaigns?state=running`: the state filter and the page are in the address (decision 0045). */
export function CampaignsPage() {
  const [filters, setFilters] = useQueryState(FILTER_NAMES);
  const agents = useLoad(() => api<Page<Agent>>('GET', withQuery('/v1/agents', { limit: 100 })), 'agents');
  const agentNames = new Map((agents.data?.data ?? []).map((agent) => [agent.id, agent.name]));
  return (
    <section className="card" aria-labelledby="campaigns-title">
      <div className="toolbar">
        <h2 id="campaigns-title">Campaigns</h2>
        <Link to="/campaigns/new" className="button">
          New campaign
        </Link>
      </div>
      <search className="campaign-filters" aria-label="Filter campaigns">
        <Field label="State">
          {(id) => (
            <select id={id} value={filters.state} onChange={(event) => setFilters({ state: event.target.value })}>
              <option value="">Any state</option>
              {CAMPAIGN_STATES.map((state) => (
                <option key={state.value} value={state.value}>
                  {state.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </search>
      <FormFailure failure={agents.failure} />
      <CampaignsTable key={filters.state} state={filters.state} agentNames={agentNames} />
    </section>
  );
}

function CampaignsTable({ state, agentNames }: { state: string; agentNames: Map<string, string> }) {
  const pager = usePager({ inUrl: true });
  const { data, failure, reload } = useLoad(
    () =>
      api<CountedPage<Campaign>>('GET', withQuery('/v1/campaigns', { state, cursor: pager.cursor, limit: PAGE_SIZE })),
    pager.cursor ?? '',
  );
  const live = data?.data.some((campaign) => campaign.state === 'running') ?? false;
  usePolling(reload, live ? LIVE_POLL_MS : null, data, failure);

  if (!data) return failure ? <FormFailure failure={failure} /> : <Loading what="campaigns" />;
  if (data.data.length === 0 && pager.cursor === undefined) {
    if (state) {
      return (
        <Empty>
          No campaign is {CAMPAIGN_STATES.find((s) => s.value === state)?.label.toLowerCase() ?? state}.{' '}
          <button type="button" className="link" onClick={() => navigate('/campaigns')}>
            Show every campaign
          </button>
        </Empty>
      );
    }
    return (
      <Empty>
        <p className="campaign-empty-text">
          No campaigns yet. A campaign calls a list of contacts with one of your <strong>Outbound</strong> or{' '}
          <strong>Click to Call</strong> agents, within the calling hours you set, and calls again those who did not
          answer. Save it as a draft, upload its contacts from a CSV file, then start it.
        </p>
        <Link to="/campaigns/new" className="button">
          New campaign
        </Link>
      </Empty>
    );
  }
  return (
    <>
      <FormFailure failure={failure} />
      <div className="row">
        {typeof data.total === 'number' && (
          <p className="list-total">
            {countOf(data.total, 'campaign', 'campaigns')}
            {state ? (data.total === 1 ? ' matches' : ' match') : ''}
          </p>
        )}
        {live && <LiveIndicator what="the progress of running campaigns" />}
      </div>
      <div className="table-scroll">
        <table aria-label="Campaigns" className="stack campaign-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Agent</th>
              <th>State</th>
              <th>Progress</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {data.data.map((campaign) => (
              <tr key={campaign.id}>
                <td data-label="Name">
                  <Link to={`/campaigns/${campaign.id}`}>{campaign.name}</Link>
                </td>
                <td data-label="Agent">{agentNames.get(campaign.agentId) ?? <code>{campaign.agentId}</code>}</td>
                <td data-label="State">
                  <span className="campaign-state">
                    <Badge value={campaign.state} />
                  </span>
                </td>
                <td data-label="Progress" className="campaign-progress-cell">
                  <CampaignProgress name={campaign.name} counts={campaign.counts} />
                </td>
                <td data-label="Created">{formatTime(campaign.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager pager={pager} nextCursor={data.nextCursor} />
    </>
  );
}
