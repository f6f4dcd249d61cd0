import { type FormEvent, useId, useMemo, useState } from 'react';
import { AGENT_TYPE_LABELS, type Agent, api, type Page, withQuery } from '../../api.js';
import { Link, navigate } from '../../router.js';
import { BackLink, Field, FieldError, FieldErrorsUnder, FormFailure, Loading, useAction, useLoad } from '../../ui.js';
import { fromLocalInput } from '../calls/format.js';
import { type Campaign, DAYS, type Day } from './types.js';

/** The campaign just created: its page says so once (it is a new component, keyed by the id). */
export const justCreated: { id?: string } = {};

/** The zone the browser is in, which a new campaign starts with. */
function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** Every IANA zone the browser knows, with UTC and the browser's own always among them. */
function timeZones(): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  return [...new Set(['UTC', browserZone(), ...zones])].sort((a, b) =>
    a === 'UTC' ? -1 : b === 'UTC' ? 1 : a < b ? -1 : 1,
  );
}

interface Draft {
  name: string;
  agentId: string;
  timezone: string;
  days: Day[];
  start: string;
  end: string;
  noAnswer: string;
  busy: string;
  voicemail: string;
  failed: string;
  delayMinutes: string;
  concurrency: string;
  callsPerMinute: string;
  startAt: string;
  doNotCallOutcomes: string;
}

const emptyDraft = (): Draft => ({
  name: '',
  agentId: '',
  timezone: browserZone(),
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '09:00',
  end: '18:00',
  noAnswer: '2',
  busy: '2',
  voicemail: '0',
  failed: '0',
  delayMinutes: '60',
  concurrency: '1',
  callsPerMinute: '10',
  startAt: '',
  doNotCallOutcomes: '',
});

/** A number as typed: a whole number goes as one; anything else as the text, for the API to say what is wrong. */
function numberOf(text: string): number | string {
  const trimmed = text.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** The create request: every field the form shows, in the API's own shape. */
function bodyOf(draft: Draft): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: draft.name.trim(),
    agentId: draft.agentId,
    timezone: draft.timezone,
    window: {
      days: DAYS.map((d) => d.value).filter((d) => draft.days.includes(d)),
      start: draft.start,
      end: draft.end,
    },
    retry: {
      noAnswer: numberOf(draft.noAnswer),
      busy: numberOf(draft.busy),
      voicemail: numberOf(draft.voicemail),
      failed: numberOf(draft.failed),
      delayMinutes: numberOf(draft.delayMinutes),
    },
    concurrency: numberOf(draft.concurrency),
    callsPerMinute: numberOf(draft.callsPerMinute),
    doNotCallOutcomes: draft.doNotCallOutcomes
      .split(/[\s,]+/)
      .map((word) => word.trim())
      .filter(Boolean),
  };
  if (draft.startAt) body.startAt = fromLocalInput(draft.startAt) || draft.startAt;
  return body;
}

/** The agents a campaign can call with: those that place calls (outbound, click to call). */
const calling = (agent: Agent) => agent.type === 'outbound' || agent.type === 'click_to_call';

/**
 * `/campaigns/new`: the campaign's settings, saved as a draft. Its contacts are uploaded on its own
 * page next (the API checks a file against a campaign), then it is started there.
 */
export function CampaignNew() {
  const agents = useLoad(() => api<Page<Agent>>('GET', withQuery('/v1/agents', { limit: 100 })), 'agents');
  if (!agents.data) {
    return agents.failure ? <FormFailure failure={agents.failure} /> : <Loading what="your agents" />;
  }
  return <CampaignForm agents={agents.data.data.filter(calling)} />;
}

function CampaignForm({ agents }: { agents: Agent[] }) {
  const [draft, setDraft] = useState<Draft>(() => ({ ...emptyDraft(), agentId: agents[0]?.id ?? '' }));
  const zones = useMemo(timeZones, []);
  const save = useAction();
  const failure = save.failure;
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const daysId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const created = await save.run(() => api<Campaign>('POST', '/v1/campaigns', bodyOf(draft)));
    if (!created) return;
    justCreated.id = created.id;
    navigate(`/campaigns/${created.id}`);
  };

  const numberField = (label: string, key: keyof Draft, path: string, hint?: string) => (
    <Field label={label} path={path} failure={failure} hint={hint}>
      {(id) => (
        <input
          id={id}
          inputMode="numeric"
          value={draft[key] as string}
          onChange={(event) => set({ [key]: event.target.value } as Partial<Draft>)}
        />
      )}
    </Field>
  );

  return (
    <form className="card wide campaign-form" onSubmit={submit} noValidate aria-labelledby="campaign-new-title">
      <BackLink to="/campaigns">Campaigns</BackLink>
      <h2 id="campaign-new-title">New campaign</h2>
      <p className="hint">
        Saved as a draft: on its page next you upload its contacts from a CSV file, check them, and start it.
      </p>
      {agents.length === 0 && (
        <div className="error banner" role="alert">
          A campaign calls with an <strong>Outbound</strong> or <strong>Click to Call</strong> agent, and you have none.{' '}
          <Link to="/agents/new">Create one first</Link>.
        </div>
      )}
      <div className="grid">
        <Field label="Name" path="$.name" failure={failure}>
          {(id) => (
            <input id={id} value={draft.name} maxLength={200} onChange={(event) => set({ name: event.target.value })} />
          )}
        </Field>
        <Field label="Agent" path="$.agentId" failure={failure} hint="The agent that places every call.">
          {(id) => (
            <select id={id} value={draft.agentId} onChange={(event) => set({ agentId: event.target.value })}>
              {agents.length === 0 && <option value="">No agent can place calls</option>}
              {agents.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name} ({AGENT_TYPE_LABELS[agent.type]})
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>

      <fieldset className="campaign-fieldset">
        <legend>Calling hours</legend>
        <p className="hint">
          Calls start only inside these hours, in the contact's own time zone when the file gives one, else in the
          campaign's.
        </p>
        <Field label="Time zone" path="$.timezone" failure={failure}>
          {(id) => (
            <select id={id} value={draft.timezone} onChange={(event) => set({ timezone: event.target.value })}>
              {zones.map((zone) => (
                <option key={zone} value={zone}>
                  {zone}
                </option>
              ))}
            </select>
          )}
        </Field>
        <fieldset className="campaign-days" aria-describedby={`${daysId}-error`}>
          <legend>Days</legend>
          <div className="campaign-day-list">
            {DAYS.map((day) => (
              <label key={day.value} className="inline">
                <input
                  type="checkbox"
                  checked={draft.days.includes(day.value)}
                  onChange={(event) =>
                    set({
                      days: event.target.checked
                        ? [...draft.days, day.value]
                        : draft.days.filter((chosen) => chosen !== day.value),
                    })
                  }
                />
                {day.label}
              </label>
            ))}
          </div>
          <div id={`${daysId}-error`}>
            <FieldError failure={failure} path="$.window.days" />
            <FieldErrorsUnder failure={failure} path="$.window.days" />
          </div>
        </fieldset>
        <div className="grid">
          <Field label="From" path="$.window.start" failure={failure} hint="Local time, included.">
            {(id) => (
              <input id={id} type="time" value={draft.start} onChange={(event) => set({ start: event.target.value })} />
            )}
          </Field>
          <Field label="Until" path="$.window.end" failure={failure} hint="Local time, excluded: no call starts then.">
            {(id) => (
              <input id={id} type="time" value={draft.end} onChange={(event) => set({ end: event.target.value })} />
            )}
          </Field>
        </div>
        <FieldError failure={failure} path="$.window" />
        <Field
          label="Start at (optional)"
          path="$.startAt"
          failure={failure}
          hint="No call before this moment, in your browser's time; empty: as soon as it is started."
        >
          {(id) => (
            <input
              id={id}
              type="datetime-local"
              value={draft.startAt}
              onChange={(event) => set({ startAt: event.target.value })}
            />
          )}
        </Field>
      </fieldset>

      <fieldset className="campaign-fieldset">
        <legend>Calling again</legend>
        <p className="hint">How many more attempts a contact gets after each kind of unanswered call (0 to 10).</p>
        <div className="grid">
          {numberField('After no answer', 'noAnswer', '$.retry.noAnswer')}
          {numberField('After busy', 'busy', '$.retry.busy')}
          {numberField('After voicemail', 'voicemail', '$.retry.voicemail')}
          {numberField('After a failed call', 'failed', '$.retry.failed')}
          {numberField('Minutes between attempts', 'delayMinutes', '$.retry.delayMinutes', '1 to 10,080 (a week).')}
        </div>
        <FieldError failure={failure} path="$.retry" />
      </fieldset>

      <fieldset className="campaign-fieldset">
        <legend>Pace</legend>
        <div className="grid">
          {numberField(
            'Calls at once',
            'concurrency',
            '$.concurrency',
            '1 to 1,000; the agent’s own limit also holds.',
          )}
          {numberField('Calls per minute', 'callsPerMinute', '$.callsPerMinute', '1 to 6,000.')}
        </div>
        <Field
          label="Do-not-call outcomes (optional)"
          path="$.doNotCallOutcomes"
          failure={failure}
          hint="Outcomes, separated by commas, that put the number on your do-not-call list: DO_NOT_CALL, say."
        >
          {(id) => (
            <input
              id={id}
              value={draft.doNotCallOutcomes}
              placeholder="DO_NOT_CALL"
              onChange={(event) => set({ doNotCallOutcomes: event.target.value })}
            />
          )}
        </Field>
        <FieldErrorsUnder failure={failure} path="$.doNotCallOutcomes" />
      </fieldset>

      <FormFailure failure={failure} />
      <div className="actions">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save draft'}
        </button>
        <Link to="/campaigns" className="button secondary">
          Cancel
        </Link>
      </div>
    </form>
  );
}
