import { type FormEvent, useState } from 'react';
import { type Agent, api } from '../../api.js';
import { navigate } from '../../router.js';
import { Field, FieldError, FormFailure, useAction } from '../../ui.js';

/**
 * "Test call": places a click-to-call from the dashboard (signed on the server with the agent's
 * own credentials, so it passes the same checks as a backend's request) and opens the call, which
 * then shows live. On the simulator nothing rings; on Vapi or Retell the number really rings.
 */
export function TestCallPanel({ agent }: { agent: Agent }) {
  const [phone, setPhone] = useState('+14155550123');
  const [variables, setVariables] = useState<Record<string, string>>(() =>
    Object.fromEntries(agent.variables.map((name) => [name, ''])),
  );
  const place = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const placed = await place.run(() =>
      api<{ callId: string }>('POST', `/v1/agents/${agent.id}/test-call`, { phone, variables }),
    );
    if (placed) navigate(`/calls/${placed.callId}`);
  }

  return (
    <form className="card wide" onSubmit={submit} aria-label="Test call" aria-busy={place.busy}>
      <h3>Test call</h3>
      <p className="hint">
        {agent.provider === 'simulator'
          ? 'The simulator runs the call with this agent’s scenario; nothing rings. You will see it live.'
          : `This places a real call through ${agent.provider}: the number below rings.`}
      </p>
      <div className="grid">
        <Field label="Phone number" path="$.phone" failure={place.failure}>
          {(id) => <input id={id} value={phone} onChange={(e) => setPhone(e.target.value)} />}
        </Field>
        {Object.keys(variables).map((name) => (
          <Field key={name} label={`{{${name}}}`} path={`$.variables.${name}`} failure={place.failure}>
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
      <FieldError failure={place.failure} path="$.variables" />
      <FormFailure failure={place.failure} />
      <div className="actions">
        <button type="submit" disabled={place.busy}>
          {place.busy ? 'Placing the call…' : 'Test call'}
        </button>
      </div>
    </form>
  );
}
