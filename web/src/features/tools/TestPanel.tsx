import { useEffect, useId, useState } from 'react';
import { api, type Tool, type ToolTestResult } from '../../api.js';
import { Preformatted, ReceivedResponse, SentRequest } from '../../http-exchange.js';
import { FormFailure, useAction } from '../../ui.js';
import { exampleOf, rowKey } from './draft.js';
import { removeAt, replaceAt } from './rows.js';

interface VariableRow {
  key: string;
  name: string;
  value: string;
}

/** What the arguments text holds: an object to send, or why it cannot be sent. */
function parseArgs(text: string): { args: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { problem: 'The arguments must be a JSON object, e.g. {"email": "ada@example.com"}' };
  }
  return { args: value as Record<string, unknown> };
}

/**
 * Runs the saved tool once (`POST /v1/tools/:id/test`) and shows what happened: the exact request
 * sent, the endpoint's response, and the result the agent would be handed.
 */
export function TestPanel({ tool, unsaved }: { tool: Tool; unsaved: boolean }) {
  const example = JSON.stringify(exampleOf(tool.aiSchema), null, 2);
  const [argsText, setArgsText] = useState(example);
  const [argsTouched, setArgsTouched] = useState(false);
  const [argsProblem, setArgsProblem] = useState<string | null>(null);
  const [variables, setVariables] = useState<VariableRow[]>(() =>
    tool.variables.map((v) => ({ key: rowKey(), name: v.name, value: '' })),
  );
  const [outcome, setOutcome] = useState<ToolTestResult | null>(null);
  const action = useAction();
  const argsId = useId();

  // A save changes the schema: the example follows it until the person writes arguments of their own.
  useEffect(() => {
    if (!argsTouched) setArgsText(example);
  }, [example, argsTouched]);

  const run = async () => {
    // Whatever this run ends in, what the previous run showed goes first: a run that fails, here or at
    // the API, must never leave an older result looking like its own.
    setOutcome(null);
    action.clear();
    const parsed = parseArgs(argsText);
    if ('problem' in parsed) {
      setArgsProblem(parsed.problem);
      return;
    }
    setArgsProblem(null);
    const given = Object.fromEntries(variables.filter((v) => v.name !== '').map((v) => [v.name, v.value]));
    const result = await action.run(() =>
      api<ToolTestResult>('POST', `/v1/tools/${tool.id}/test`, { args: parsed.args, variables: given }),
    );
    if (result) setOutcome(result);
  };

  return (
    <section className="card" aria-label="Test the tool">
      <h3>Test</h3>
      <p className="hint">
        Sends one real request to the endpoint, as the agent would.
        {unsaved && <strong> The form has unsaved changes: the test runs the saved tool.</strong>}
      </p>
      <div className="field">
        <label htmlFor={argsId}>Arguments (JSON)</label>
        <textarea
          id={argsId}
          className="code"
          rows={Math.min(14, Math.max(4, argsText.split('\n').length))}
          value={argsText}
          onChange={(e) => {
            setArgsTouched(true);
            setArgsText(e.target.value);
          }}
        />
        <div className="hint">What the model would fill in (the AI-filled parameters), started from the schema.</div>
        {argsProblem && (
          <div className="error" role="alert">
            {argsProblem}
          </div>
        )}
      </div>
      <fieldset className="tool-rows">
        <legend>Variables for this test</legend>
        <p className="hint">Stand-ins for the call&apos;s click-to-call variables; left empty, the default applies.</p>
        {variables.map((variable, i) => (
          <div key={variable.key} className="tool-row tool-row-variable">
            <input
              aria-label={`Test variable ${i + 1} name`}
              value={variable.name}
              onChange={(e) => setVariables(replaceAt(variables, i, { ...variable, name: e.target.value }))}
            />
            <input
              aria-label={`Test variable ${i + 1} value`}
              value={variable.value}
              placeholder={tool.variables.find((v) => v.name === variable.name)?.defaultValue ?? ''}
              onChange={(e) => setVariables(replaceAt(variables, i, { ...variable, value: e.target.value }))}
            />
            <button
              type="button"
              className="secondary small"
              aria-label={`Remove test variable ${i + 1}`}
              onClick={() => setVariables(removeAt(variables, i))}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          className="secondary small"
          onClick={() => setVariables([...variables, { key: rowKey(), name: '', value: '' }])}
        >
          Add test variable
        </button>
      </fieldset>
      <div className="actions">
        <button type="button" onClick={run} disabled={action.busy} aria-busy={action.busy}>
          {action.busy ? 'Testing…' : 'Test'}
        </button>
      </div>
      <FormFailure failure={action.failure} />
      {outcome && <TestOutcome outcome={outcome} />}
    </section>
  );
}

function TestOutcome({ outcome }: { outcome: ToolTestResult }) {
  const { request, response } = outcome;
  return (
    <div className="test-outcome">
      <section aria-label="Request sent">
        <h4>Request sent</h4>
        {request ? <SentRequest request={request} /> : <p className="muted">Nothing was sent.</p>}
      </section>
      <section aria-label="Response">
        <h4>Response</h4>
        {response ? (
          <ReceivedResponse status={response.status} body={textOf(response.body)} />
        ) : (
          <p className="muted">No response.</p>
        )}
      </section>
      <section aria-label="Result for the agent">
        <h4>Result handed to the agent</h4>
        <Preformatted data-testid="test-result">{textOf(outcome.result)}</Preformatted>
      </section>
      {outcome.error && (
        <p className="error" role="alert">
          Error: {outcome.error}
        </p>
      )}
    </div>
  );
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
