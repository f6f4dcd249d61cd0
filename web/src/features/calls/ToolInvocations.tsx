import type { ToolInvocation } from '../../api.js';
import { Preformatted, ReceivedResponse, SentRequest } from '../../http-exchange.js';
import { Empty, formatTime } from '../../ui.js';
import { prettyText } from './format.js';
import { Panel } from './parts.js';

/** Every tool the agent ran during the call, with what was really sent and what came back. */
export function ToolInvocations({ invocations }: { invocations: ToolInvocation[] }) {
  return (
    <Panel title="Tool invocations">
      {invocations.length === 0 ? (
        <Empty>No tools were run during this call.</Empty>
      ) : (
        invocations.map((invocation) => <Invocation key={invocation.id} invocation={invocation} />)
      )}
    </Panel>
  );
}

function Invocation({ invocation }: { invocation: ToolInvocation }) {
  return (
    <article className="invocation" aria-label={`Tool invocation ${invocation.name}`}>
      <div className="toolbar">
        <h3>
          <code>{invocation.name}</code>
        </h3>
        <span className="muted">
          {formatTime(invocation.at)}
          {invocation.latencyMs !== null && <> · {invocation.latencyMs} ms</>}
        </span>
      </div>
      {invocation.error && (
        <div className="error banner" role="alert">
          {invocation.error}
        </div>
      )}
      <div className="grid">
        <div>
          <h4>Arguments</h4>
          <Preformatted>{prettyText(invocation.arguments)}</Preformatted>
        </div>
        <div>
          <h4>Result given to the agent</h4>
          <Preformatted>{prettyText(invocation.result)}</Preformatted>
        </div>
      </div>
      <details>
        <summary>Request</summary>
        {invocation.request ? (
          <SentRequest request={invocation.request} />
        ) : (
          <p className="muted">
            Nothing was sent: the arguments failed their checks or the tool could not run (see the error).
          </p>
        )}
      </details>
      <details>
        <summary>Response</summary>
        {invocation.response ? (
          <ReceivedResponse status={invocation.response.status} body={invocation.response.body} />
        ) : (
          <p className="muted">No response came back.</p>
        )}
      </details>
    </article>
  );
}
