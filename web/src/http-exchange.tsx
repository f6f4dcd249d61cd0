import type { ComponentProps } from 'react';
import type { RecordedRequest } from './api.js';

/**
 * Text shown as it is (bodies, JSON, code) in a box that scrolls once it is taller than the page allows.
 * It takes the keyboard's focus, so someone without a mouse can scroll it with the arrow keys too
 * (WCAG 2.1.1; axe's scrollable-region-focusable). Every such block in the dashboard is one of these.
 */
export function Preformatted(props: ComponentProps<'pre'>) {
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to be scrolled
  return <pre tabIndex={0} {...props} />;
}

/**
 * A request as it was sent (tool runs, tool tests, webhook tests): the request line, every header
 * (secret values already masked by the API) and the body as the exact text sent, not re-indented,
 * so what is shown is what the receiver got.
 */
export function SentRequest({ request }: { request: RecordedRequest }) {
  const headers = Object.entries(request.headers);
  return (
    <>
      <p className="request-line" data-testid="request-line">
        <strong>{request.method}</strong> <code>{request.url}</code>
      </p>
      {headers.length > 0 && (
        <table aria-label="Request headers" className="headers">
          <tbody>
            {headers.map(([name, value]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td>
                  <code>{value}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {request.body === null || request.body === '' ? (
        <p className="muted">No body.</p>
      ) : (
        <Preformatted data-testid="request-body">{request.body}</Preformatted>
      )}
    </>
  );
}

/** What came back: the status and the body excerpt as received. */
export function ReceivedResponse({ status, body }: { status: number; body: string }) {
  return (
    <>
      <p>
        HTTP status <strong data-testid="response-status">{status}</strong>
      </p>
      <Preformatted data-testid="response-body">{body || '(empty)'}</Preformatted>
    </>
  );
}
