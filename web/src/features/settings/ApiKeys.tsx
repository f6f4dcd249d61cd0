import { type FormEvent, useState } from 'react';
import { type ApiKey, api, type Page } from '../../api.js';
import {
  ConfirmButton,
  CopyButton,
  Empty,
  Field,
  FormFailure,
  formatTime,
  Loading,
  useAction,
  useLoad,
} from '../../ui.js';

/** Organization API keys for the management API: created, listed masked, revoked. A key is shown once. */
export function ApiKeys() {
  const keys = useLoad(() => api<Page<ApiKey>>('GET', '/v1/api-keys'), '');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<ApiKey | null>(null);
  const create = useAction();
  const revoke = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const key = await create.run(() => api<ApiKey>('POST', '/v1/api-keys', { name }));
    if (key) {
      setCreated(key);
      setName('');
      keys.reload();
    }
  }

  return (
    <section className="card" aria-label="API keys">
      <h2>API keys</h2>
      <p className="hint">
        Your backend manages agents, tools and calls with <code>Authorization: Bearer &lt;API key&gt;</code>.
      </p>
      {created?.key && (
        <div className="notice" role="status">
          New key <strong>{created.name}</strong>: <code data-testid="new-api-key">{created.key}</code>{' '}
          <CopyButton text={created.key} label="Copy key" />
          <div className="hint">Copy it now: it is not shown again.</div>
        </div>
      )}
      <FormFailure failure={keys.failure ?? revoke.failure} />
      {!keys.data ? (
        !keys.failure && <Loading what="API keys" />
      ) : keys.data.data.length === 0 ? (
        <Empty>No API keys. Create one for your backend below.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.data.data.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td>
                  <code>{key.prefix}••••••</code>
                </td>
                <td>{formatTime(key.createdAt)}</td>
                <td>
                  <ConfirmButton
                    label="Revoke"
                    question="Requests with this key stop working at once. Revoke?"
                    confirmLabel="Yes, revoke"
                    danger
                    busy={revoke.busy}
                    onConfirm={async () => {
                      if ((await revoke.run(() => api('DELETE', `/v1/api-keys/${key.id}`))) !== undefined)
                        keys.reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={submit} className="row" aria-label="Create an API key" noValidate>
        <Field label="New key name" path="$.name" failure={create.failure}>
          {(id) => <input id={id} value={name} placeholder="CRM backend" onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit" disabled={create.busy}>
          Create key
        </button>
      </form>
      {create.failure && create.failure.details.length === 0 && <FormFailure failure={create.failure} />}
    </section>
  );
}
