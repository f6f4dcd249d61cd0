import { useEffect, useState } from 'react';
import { type ApiFailure, api } from '../../api.js';
import { Preformatted } from '../../http-exchange.js';
import { asFailure } from '../../ui.js';
import type { ToolBody } from './draft.js';

/** How long typing must pause before the preview is asked for again. */
const DEBOUNCE_MS = 300;

type PreviewState = { status: 'updating' } | { status: 'current' } | { status: 'refused'; failure: ApiFailure };

/**
 * The JSON Schema the model will see, as the API compiles it (`POST /v1/tools/preview`) from the
 * form as it is now, saved or not. While the API refuses the definition, the last schema it
 * accepted stays, marked out of date, with the reasons. A new tool's form nobody has typed in yet
 * (`untouched`) shows no reasons: an empty form is not a mistake (issue 18).
 */
export function SchemaPreview({ body, untouched = false }: { body: ToolBody; untouched?: boolean }) {
  const text = JSON.stringify(body);
  const [schema, setSchema] = useState<unknown>(undefined);
  const [state, setState] = useState<PreviewState>({ status: 'updating' });

  useEffect(() => {
    let current = true;
    setState({ status: 'updating' });
    const timer = setTimeout(async () => {
      try {
        const answer = await api<{ aiSchema: unknown }>('POST', '/v1/tools/preview', JSON.parse(text));
        if (!current) return;
        setSchema(answer.aiSchema);
        setState({ status: 'current' });
      } catch (error) {
        if (current) setState({ status: 'refused', failure: asFailure(error) });
      }
    }, DEBOUNCE_MS);
    // An answer for a form that has changed since is dropped: only the latest one counts.
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text]);

  // While an update is on its way the schema is shown as it was: it is only out of date once refused.
  const stale = state.status === 'refused';
  return (
    <section className="card tool-preview" aria-label="AI schema preview" aria-busy={state.status === 'updating'}>
      <h3>What the model sees</h3>
      <p className="hint" role="status">
        {state.status === 'updating' && 'Updating…'}
        {state.status === 'current' && 'Up to date with the form (not saved until you press Save).'}
        {state.status === 'refused' && untouched && 'The schema appears here once the tool has a name and a URL.'}
        {state.status === 'refused' &&
          !untouched &&
          (schema === undefined
            ? 'Not valid yet: the schema appears once the API accepts the definition.'
            : 'Out of date: the API refuses the definition as it stands; this is the last valid schema.')}
      </p>
      {state.status === 'refused' && !untouched && (
        // Before the first valid schema these are to-dos, not mistakes: shown quietly.
        <ul className={schema === undefined ? 'hint preview-problems' : 'error preview-problems'}>
          {state.failure.details.length === 0 ? (
            <li>{state.failure.message}</li>
          ) : (
            state.failure.details.map((d) => (
              <li key={`${d.path}:${d.message}`}>
                <code>{d.path}</code> {d.message}
              </li>
            ))
          )}
        </ul>
      )}
      {schema !== undefined && (
        <Preformatted data-testid="ai-schema" className={stale ? 'stale' : undefined} data-stale={stale}>
          {JSON.stringify(schema, null, 2)}
        </Preformatted>
      )}
      <p className="hint">Only AI-filled parameters are shown to the model; Variable and Fixed values never are.</p>
    </section>
  );
}
