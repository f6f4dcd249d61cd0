import { useState } from 'react';
import { type AgentCredentials, api } from '../../api.js';
import { ConfirmButton, CopyButton, Fact, FormFailure, useAction } from '../../ui.js';

const EXAMPLES: { key: keyof AgentCredentials['examples']; label: string }[] = [
  { key: 'curl', label: 'curl' },
  { key: 'node', label: 'Node.js' },
  { key: 'python', label: 'Python' },
];

/**
 * The seed's "Show Credentials & Instructions": the API Token and API Secret a backend signs its
 * click-to-call requests with, the endpoint, and examples that sign the exact bytes they send.
 * Fetched only when asked for (the answer is not cached), and rotated only after a confirmation.
 */
export function CredentialsPanel({ agentId }: { agentId: string }) {
  const [credentials, setCredentials] = useState<AgentCredentials | null>(null);
  const [example, setExample] = useState<keyof AgentCredentials['examples']>('curl');
  const [rotated, setRotated] = useState(false);
  const load = useAction();

  return (
    <section className="card" aria-label="Credentials">
      <div className="toolbar">
        <h3>Credentials</h3>
        {credentials ? (
          <button type="button" className="secondary" onClick={() => setCredentials(null)}>
            Hide
          </button>
        ) : (
          <button
            type="button"
            disabled={load.busy}
            onClick={async () => {
              const shown = await load.run(() => api<AgentCredentials>('GET', `/v1/agents/${agentId}/credentials`));
              if (shown) setCredentials(shown);
            }}
          >
            {load.busy ? 'Loading…' : 'Show Credentials & Instructions'}
          </button>
        )}
      </div>
      <FormFailure failure={load.failure} />
      {!credentials ? (
        <p className="hint">
          Your backend needs these to ask this agent to call someone. Keep the secret on the server.
        </p>
      ) : (
        <>
          {rotated && (
            <div className="notice" role="status">
              New credentials issued: the previous API Token and API Secret no longer work.
            </div>
          )}
          <dl className="facts">
            <Fact label="API Token">
              <code data-testid="api-token">{credentials.apiToken}</code>{' '}
              <CopyButton text={credentials.apiToken} label="Copy API Token" />
            </Fact>
            <Fact label="API Secret">
              <code data-testid="api-secret">{credentials.apiSecret}</code>{' '}
              <CopyButton text={credentials.apiSecret} label="Copy API Secret" />
            </Fact>
            <Fact label="Endpoint">
              <code data-testid="endpoint">POST {credentials.endpoint}</code>{' '}
              <CopyButton text={credentials.endpoint} label="Copy endpoint" />
            </Fact>
          </dl>
          <p>
            Send the request from your backend with the headers <code>api-key</code> (the API Token) and{' '}
            <code>signature</code>: the lowercase hex HMAC-SHA256 of the exact body, keyed with the API Secret.
          </p>
          <div className="tabs" role="tablist" aria-label="Examples">
            {EXAMPLES.map(({ key, label }) => (
              <button
                key={key}
                type="button"
                role="tab"
                aria-selected={example === key}
                className={example === key ? undefined : 'secondary'}
                onClick={() => setExample(key)}
              >
                {label}
              </button>
            ))}
          </div>
          <pre data-testid="example">{credentials.examples[example]}</pre>
          <div className="actions">
            <CopyButton text={credentials.examples[example]} label="Copy example" />
            <CopyButton text={credentials.instructions} label="Copy all instructions" />
            <ConfirmButton
              label="Rotate credentials"
              question="The current API Token and API Secret stop working at once. Rotate?"
              confirmLabel="Yes, rotate"
              danger
              busy={load.busy}
              onConfirm={async () => {
                const fresh = await load.run(() =>
                  api<AgentCredentials>('POST', `/v1/agents/${agentId}/credentials/rotate`),
                );
                if (fresh) {
                  setCredentials(fresh);
                  setRotated(true);
                }
              }}
            />
          </div>
        </>
      )}
    </section>
  );
}
