import { type KeyboardEvent, useId, useRef, useState } from 'react';
import { type AgentCredentials, api } from '../../api.js';
import { Preformatted } from '../../http-exchange.js';
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
  const base = useId();
  const exampleTabs = useRef(new Map<string, HTMLButtonElement>());
  const onExampleKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const at = EXAMPLES.findIndex(({ key }) => key === example);
    const next =
      event.key === 'ArrowRight'
        ? (at + 1) % EXAMPLES.length
        : event.key === 'ArrowLeft'
          ? (at - 1 + EXAMPLES.length) % EXAMPLES.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? EXAMPLES.length - 1
              : undefined;
    const key = next === undefined ? undefined : EXAMPLES[next]?.key;
    if (!key) return;
    event.preventDefault();
    setExample(key);
    exampleTabs.current.get(key)?.focus();
  };

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
          {/* The ARIA tabs pattern: one tab stop, the arrow keys (and Home, End) choose the language. */}
          <div className="tabs" role="tablist" aria-label="Examples" onKeyDown={onExampleKey}>
            {EXAMPLES.map(({ key, label }) => (
              <button
                key={key}
                ref={(element) => {
                  if (element) exampleTabs.current.set(key, element);
                }}
                type="button"
                role="tab"
                id={`${base}-tab-${key}`}
                aria-selected={example === key}
                aria-controls={`${base}-example`}
                tabIndex={example === key ? 0 : -1}
                className={example === key ? undefined : 'secondary'}
                onClick={() => setExample(key)}
              >
                {label}
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`${base}-example`} aria-labelledby={`${base}-tab-${example}`}>
            <Preformatted data-testid="example">{credentials.examples[example]}</Preformatted>
          </div>
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
