import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { api, type Tool } from '../../api.js';
import { Link, navigate } from '../../router.js';
import { ConfirmButton, Field, FieldError, FormFailure, Loading, SaveBar, useAction, useLoad } from '../../ui.js';
import {
  bodyOf,
  DESCRIPTION_LIMIT,
  draftOf,
  emptyDraft,
  lengthOf,
  METHODS,
  type Method,
  newField,
  type ToolDraft,
} from './draft.js';
import { FieldEditor } from './FieldEditor.js';
import { HeadersEditor } from './HeadersEditor.js';
import { removeAt, replaceAt } from './rows.js';
import { SchemaPreview } from './SchemaPreview.js';
import { TestPanel } from './TestPanel.js';
import { VariablesEditor } from './VariablesEditor.js';
import './tools.css';

/**
 * The tool a create has just made: the editor of `/tools/:id` is a new component (keyed by id),
 * and this is how it knows to say "Saved".
 */
let createdJustNow: string | undefined;

/** `/tools/new` and `/tools/:id`. */
export function ToolEditor({ id }: { id?: string }) {
  const { data, failure } = useLoad(
    () => (id ? api<Tool>('GET', `/v1/tools/${encodeURIComponent(id)}`) : Promise.resolve(null)),
    id ?? 'new',
  );
  if (failure) {
    return (
      <section className="card">
        <h2>Tool</h2>
        <FormFailure failure={failure} />
        <Link to="/tools">Back to the tools</Link>
      </section>
    );
  }
  if (data === undefined) return <Loading what="the tool" />;
  return <ToolForm initial={data ?? undefined} />;
}

function ToolForm({ initial }: { initial?: Tool }) {
  const [saved, setSaved] = useState<Tool | undefined>(initial);
  const [draft, setDraft] = useState<ToolDraft>(() => (initial ? draftOf(initial) : emptyDraft()));
  const [savedNotice, setSavedNotice] = useState(() => initial !== undefined && createdJustNow === initial.id);
  useEffect(() => {
    createdJustNow = undefined;
  }, []);
  const save = useAction();
  const remove = useAction();

  const body = bodyOf(draft);
  const savedText = useMemo(() => saved && JSON.stringify(bodyOf(draftOf(saved))), [saved]);
  const unsaved = savedText !== undefined && savedText !== JSON.stringify(body);
  // A new tool's form as it opened: nothing typed yet, so nothing is wrong yet.
  const untouched = useMemo(() => JSON.stringify(bodyOf(emptyDraft())), []) === JSON.stringify(body) && !saved;
  const set = (patch: Partial<ToolDraft>) => {
    setDraft({ ...draft, ...patch });
    setSavedNotice(false);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSavedNotice(false);
    const result = await save.run(() =>
      saved ? api<Tool>('PATCH', `/v1/tools/${saved.id}`, body) : api<Tool>('POST', '/v1/tools', body),
    );
    if (!result) return;
    if (!saved) {
      createdJustNow = result.id;
      navigate(`/tools/${result.id}`);
      return;
    }
    setSaved(result);
    // What the API stored, secrets masked and defaults applied, is what the form shows from now on.
    setDraft(draftOf(result));
    setSavedNotice(true);
  };

  const failure = save.failure;
  const descriptionLength = lengthOf(draft.description);
  return (
    <div className="tool-layout">
      <div className="tool-main">
        <form className="card wide" onSubmit={submit} noValidate aria-label="Tool">
          <p className="back">
            <Link to="/tools">← Tools</Link>
          </p>
          <div className="toolbar">
            <h2>{saved ? `Tool ${saved.name}` : 'New tool'}</h2>
          </div>
          <p className="hint">
            An HTTP endpoint of yours the agent calls during a call: the model fills in the AI parameters, the rest is
            set here.
          </p>
          <div className="grid">
            <Field
              label="Name"
              path="$.name"
              failure={failure}
              hint="Letters, digits, _ and -; the model calls it by this name."
            >
              {(id) => <input id={id} value={draft.name} onChange={(e) => set({ name: e.target.value })} />}
            </Field>
            <Field label="Timeout (ms)" path="$.timeoutMs" failure={failure} hint="1,000 to 30,000.">
              {(id) => (
                <input
                  id={id}
                  inputMode="numeric"
                  value={draft.timeoutMs}
                  onChange={(e) => set({ timeoutMs: e.target.value })}
                />
              )}
            </Field>
          </div>
          <Field label="Description" path="$.description" failure={failure}>
            {(id) => (
              <>
                <textarea
                  id={id}
                  rows={4}
                  value={draft.description}
                  placeholder="What the tool does and when the agent should use it."
                  onChange={(e) => set({ description: e.target.value })}
                />
                <div
                  className={descriptionLength > DESCRIPTION_LIMIT ? 'hint over' : 'hint'}
                  data-testid="description-count"
                >
                  {descriptionLength.toLocaleString('en-US')} / {DESCRIPTION_LIMIT.toLocaleString('en-US')}
                </div>
              </>
            )}
          </Field>
          <div className="tool-request">
            <Field label="Method" path="$.method" failure={failure}>
              {(id) => (
                <select id={id} value={draft.method} onChange={(e) => set({ method: e.target.value as Method })}>
                  {METHODS.map((method) => (
                    <option key={method} value={method}>
                      {method}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="URL" path="$.url" failure={failure} hint="Path parameters go in braces: /orders/{order_id}.">
              {(id) => (
                <input
                  id={id}
                  type="url"
                  value={draft.url}
                  placeholder="https://api.example.com/orders/{order_id}"
                  onChange={(e) => set({ url: e.target.value })}
                />
              )}
            </Field>
          </div>

          <HeadersEditor headers={draft.headers} onChange={(headers) => set({ headers })} failure={failure} />

          <fieldset className="tool-rows">
            <legend>Parameters</legend>
            <p className="hint">
              <strong>AI</strong>: the agent fills it in from the conversation. <strong>Variable</strong>: text with{' '}
              {'{{name}}'} taken from the call. <strong>Fixed</strong>: always the same value.
            </p>
            <FieldError failure={failure} path="$.parameters" />
            {draft.parameters.map((parameter, i) => (
              <FieldEditor
                key={parameter.key}
                field={parameter}
                onChange={(next) => set({ parameters: replaceAt(draft.parameters, i, next) })}
                onRemove={() => set({ parameters: removeAt(draft.parameters, i) })}
                path={`$.parameters[${i}]`}
                label={`Parameter ${i + 1}`}
                depth={1}
                failure={failure}
              />
            ))}
            <button
              type="button"
              className="secondary small"
              onClick={() => set({ parameters: [...draft.parameters, newField()] })}
            >
              Add parameter
            </button>
          </fieldset>

          <VariablesEditor variables={draft.variables} onChange={(variables) => set({ variables })} failure={failure} />

          <SaveBar failure={failure} saved={savedNotice} busy={save.busy}>
            {unsaved && <span className="hint">Unsaved changes</span>}
            {saved && (
              <ConfirmButton
                label="Delete"
                question="Delete this tool? Agents that use it lose it."
                confirmLabel="Yes, delete"
                danger
                busy={remove.busy}
                onConfirm={async () => {
                  const done = await remove.run(() => api<null>('DELETE', `/v1/tools/${saved.id}`));
                  if (done !== undefined) navigate('/tools');
                }}
              />
            )}
          </SaveBar>
          <FormFailure failure={remove.failure} />
        </form>
        {saved && <TestPanel tool={saved} unsaved={unsaved} />}
      </div>
      <aside className="tool-side">
        <SchemaPreview body={body} untouched={untouched} />
      </aside>
    </div>
  );
}
