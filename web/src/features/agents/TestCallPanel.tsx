import { type FormEvent, type ReactNode, useState } from 'react';
import { type Agent, api, type Call } from '../../api.js';
import { Link, navigate } from '../../router.js';
import { Field, FieldError, FormFailure, useAction } from '../../ui.js';

/**
 * "Test call" for outbound and Click to Call agents: `POST /v1/calls`, the same call (and the same
 * checks) an API client starts, then the call opens and shows live. On the simulator nothing
 * rings; on Vapi or Retell the number really rings.
 */
export function TestCallPanel({ agent }: { agent: Agent }) {
  return (
    <RunPanel
      agent={agent}
      label="Test call"
      numberLabel="Phone number"
      numberPath="$.phone"
      initialNumber="+14155550123"
      busyText="Placing the call…"
      hint={
        agent.provider === 'simulator'
          ? 'The simulator runs the call with this agent’s scenario; nothing rings. You will see it live.'
          : `This places a real call through ${agent.provider}: the number below rings.`
      }
      start={(phone, variables) => api<Call>('POST', '/v1/calls', { agentId: agent.id, phone, variables })}
    />
  );
}

/**
 * For inbound agents: `POST /v1/agents/:id/simulate-inbound` plays the agent's scenario on the
 * simulator as a call from the number given, then the call opens and shows live.
 */
export function SimulateInboundPanel({ agent }: { agent: Agent }) {
  return (
    <RunPanel
      agent={agent}
      label="Simulate an incoming call"
      numberLabel="Caller's number"
      numberPath="$.from"
      initialNumber="+14155550199"
      busyText="Starting the call…"
      hint="The simulator plays this agent’s scenario as if the number below rang it: its tools run and its outcome is delivered to its webhooks like a real call’s. Nothing rings."
      start={(from, variables) =>
        api<Call>('POST', `/v1/agents/${encodeURIComponent(agent.id)}/simulate-inbound`, { from, variables })
      }
    />
  );
}

/**
 * A number and the agent's variables, and a button that starts a call with them. The call it
 * started opens; a refusal is shown beside the field it names, and replaces what the run before
 * showed (a failed run never leaves an older result in view).
 */
function RunPanel({
  agent,
  label,
  numberLabel,
  numberPath,
  initialNumber,
  busyText,
  hint,
  start,
}: {
  agent: Agent;
  label: string;
  numberLabel: string;
  numberPath: string;
  initialNumber: string;
  busyText: string;
  hint: ReactNode;
  start: (number: string, variables: Record<string, string>) => Promise<Call>;
}) {
  const [number, setNumber] = useState(initialNumber);
  const [variables, setVariables] = useState<Record<string, string>>(() =>
    Object.fromEntries(agent.variables.map((name) => [name, ''])),
  );
  const run = useAction();
  const [started, setStarted] = useState<Call | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setStarted(null);
    const call = await run.run(() => start(number, variables));
    if (!call) return;
    setStarted(call);
    navigate(`/calls/${call.id}`);
  }

  // A call the provider failed to start is recorded: its page says what happened.
  const failedCallId = run.failure?.details.find((detail) => 'callId' in detail)?.callId as string | undefined;
  return (
    <form className="card wide" onSubmit={submit} aria-label={label} aria-busy={run.busy} noValidate>
      <h3>{label}</h3>
      <p className="hint">{hint}</p>
      <div className="grid">
        <Field label={numberLabel} path={numberPath} failure={run.failure}>
          {(id) => <input id={id} value={number} onChange={(e) => setNumber(e.target.value)} />}
        </Field>
        {Object.keys(variables).map((name) => (
          <Field key={name} label={`{{${name}}}`} path={`$.variables.${name}`} failure={run.failure}>
            {(id) => (
              <input
                id={id}
                value={variables[name]}
                onChange={(e) => setVariables({ ...variables, [name]: e.target.value })}
              />
            )}
          </Field>
        ))}
      </div>
      <FieldError failure={run.failure} path="$.variables" />
      <FormFailure failure={run.failure} />
      {failedCallId && (
        <p>
          <Link to={`/calls/${failedCallId}`}>Open the failed call</Link>
        </p>
      )}
      {started && !run.failure && (
        <p className="notice" role="status">
          Call started: <Link to={`/calls/${started.id}`}>{started.id}</Link>
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={run.busy}>
          {run.busy ? busyText : label}
        </button>
      </div>
    </form>
  );
}
