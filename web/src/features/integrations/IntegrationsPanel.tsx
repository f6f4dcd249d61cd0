import { type FormEvent, useState } from 'react';
import {
  type Agent,
  api,
  type Integration,
  type IntegrationTestResult,
  type Page,
  SECRET_MASK,
  withQuery,
} from '../../api.js';
import { ReceivedResponse, SentRequest } from '../../http-exchange.js';
import { Link } from '../../router.js';
import {
  Badge,
  ConfirmButton,
  Field,
  FormFailure,
  FormList,
  formatTime,
  SaveBar,
  SecretInput,
  SecretValue,
  useAction,
  useLoad,
} from '../../ui.js';
import { type ConditionRow, conditionsOf, rowsOf, TriggerConditionsEditor } from './TriggerConditionsEditor.js';

/** An agent's webhook integrations: where each call's outcome is POSTed, signed. */
export function IntegrationsPanel({ agent }: { agent: Agent }) {
  const list = useLoad(() => api<Page<Integration>>('GET', `/v1/agents/${agent.id}/integrations?limit=100`), agent.id);
  return (
    <FormList
      label="Integrations"
      title={<h3>Webhook integrations</h3>}
      addLabel="Add webhook"
      what="integrations"
      load={list}
      empty="No webhooks yet. Add one and every call's outcome, transcript and collected data is POSTed to your URL, signed so you can verify it came from us."
      renderItem={(integration) => (
        <IntegrationEditor integration={integration} outcomes={agent.outcomes} onChanged={list.reload} />
      )}
      renderNew={({ saved, cancel }) => (
        <IntegrationEditor agentId={agent.id} outcomes={agent.outcomes} onChanged={saved} onCancel={cancel} />
      )}
    />
  );
}

/** One integration's form; without `integration` it creates one for `agentId`. */
function IntegrationEditor({
  integration,
  agentId,
  outcomes,
  onChanged,
  onCancel,
}: {
  integration?: Integration;
  agentId?: string;
  outcomes: string[];
  onChanged: () => void;
  onCancel?: () => void;
}) {
  const [url, setUrl] = useState(integration?.url ?? '');
  const [authorization, setAuthorization] = useState(integration?.authorization ?? '');
  const [signing, setSigning] = useState(integration?.signing ?? true);
  const [enabled, setEnabled] = useState(integration?.enabled ?? true);
  const [match, setMatch] = useState<'all' | 'any'>(integration?.triggerConditions?.match ?? 'all');
  const [rows, setRows] = useState<ConditionRow[]>(() => rowsOf(integration?.triggerConditions ?? null));
  const [saved, setSaved] = useState(false);
  const [test, setTest] = useState<IntegrationTestResult | null>(null);
  const save = useAction();
  const action = useAction();
  const sending = useAction();
  const label = integration ? integration.url : 'New webhook';

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = {
      url,
      // The mask written back keeps the stored token; empty removes it.
      authorization: authorization === '' ? null : authorization,
      signing,
      enabled,
      triggerConditions: conditionsOf(match, rows),
    };
    const result = await save.run(() =>
      integration
        ? api<Integration>('PATCH', `/v1/integrations/${integration.id}`, body)
        : api<Integration>('POST', `/v1/agents/${agentId}/integrations`, body),
    );
    if (result) {
      setSaved(true);
      onChanged();
    }
  }

  return (
    <form className="integration nested" onSubmit={submit} aria-label={`Webhook ${label}`} noValidate>
      {integration && (
        <div className="row">
          <Badge value={integration.enabled ? 'enabled' : 'disabled'} />
          {integration.disabledReason && <span className="error">{integration.disabledReason}</span>}
          {integration.failingSince && (
            <span className="muted">failing since {formatTime(integration.failingSince)}</span>
          )}
          <Link to={withQuery('/deliveries', { integrationId: integration.id })}>Delivery log</Link>
        </div>
      )}
      <div className="grid">
        <Field label="URL" path="$.url" failure={save.failure}>
          {(id) => (
            <input
              id={id}
              value={url}
              placeholder="https://crm.example.com/hooks/calls"
              onChange={(e) => setUrl(e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Bearer token"
          path="$.authorization"
          failure={save.failure}
          hint={
            integration?.authorization === SECRET_MASK
              ? 'Set (write-only). Leave as is to keep it, clear it to remove it; a URL on another host needs it again.'
              : 'Optional: sent as "Authorization: Bearer <token>".'
          }
        >
          {(id) => <SecretInput id={id} value={authorization} onChange={setAuthorization} />}
        </Field>
      </div>
      <div className="row">
        <label className="inline">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
          Enabled
        </label>
        <label className="inline">
          <input type="checkbox" checked={signing} onChange={(e) => setSigning(e.target.checked)} />
          Sign requests
        </label>
      </div>
      {integration && (
        <div className="field">
          <strong>Signing secret </strong>
          <SecretValue
            key={integration.updatedAt}
            label="Signing secret"
            load={async () => (await api<Integration>('GET', `/v1/integrations/${integration.id}`)).signingSecret}
          />{' '}
          <ConfirmButton
            label="Rotate secret"
            question="The current secret keeps signing alongside the new one for 24 hours. Rotate?"
            confirmLabel="Yes, rotate"
            busy={action.busy}
            onConfirm={async () => {
              if (await action.run(() => api('POST', `/v1/integrations/${integration.id}/rotate-secret`))) onChanged();
            }}
          />
          {integration.previousSigningSecretExpiresAt && (
            <div className="hint">
              The previous secret also signs until {formatTime(integration.previousSigningSecretExpiresAt)}.
            </div>
          )}
        </div>
      )}
      <TriggerConditionsEditor
        match={match}
        rows={rows}
        outcomes={outcomes}
        failure={save.failure}
        onChange={(nextMatch, nextRows) => {
          setMatch(nextMatch);
          setRows(nextRows);
        }}
      />
      <SaveBar failure={save.failure ?? action.failure} saved={saved} busy={save.busy}>
        {integration && (
          <button
            type="button"
            className="secondary"
            disabled={sending.busy}
            onClick={async () => {
              setTest(null);
              const result = await sending.run(() =>
                api<IntegrationTestResult>('POST', `/v1/integrations/${integration.id}/test`),
              );
              if (result) setTest(result);
            }}
          >
            {sending.busy ? 'Sending…' : 'Send test'}
          </button>
        )}
        {integration ? (
          <ConfirmButton
            label="Delete"
            question="Delete this webhook and its delivery log?"
            confirmLabel="Yes, delete"
            danger
            busy={action.busy}
            onConfirm={async () => {
              if ((await action.run(() => api('DELETE', `/v1/integrations/${integration.id}`))) !== undefined)
                onChanged();
            }}
          />
        ) : (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </SaveBar>
      <FormFailure failure={sending.failure} />
      {test && <TestResultView result={test} />}
    </form>
  );
}

function TestResultView({ result }: { result: IntegrationTestResult }) {
  const { attempt, request } = result;
  return (
    <section className="test-result" aria-label="Test result">
      <div className={result.delivered ? 'notice' : 'error banner'} role="status">
        {result.delivered
          ? `Delivered: HTTP ${attempt.status} in ${attempt.latencyMs} ms.`
          : `Not delivered: ${attempt.error ?? `HTTP ${attempt.status}`}${attempt.errorCode ? ` (${attempt.errorCode})` : ''}.`}
      </div>
      <h4>Request sent</h4>
      <SentRequest request={request} />
      <h4>Response</h4>
      {attempt.status === null ? (
        <p className="muted">No response came back.</p>
      ) : (
        <ReceivedResponse status={attempt.status} body={attempt.responseExcerpt ?? ''} />
      )}
    </section>
  );
}
