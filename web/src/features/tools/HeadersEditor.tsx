import { type ApiFailure, SECRET_MASK } from '../../api.js';
import { FieldError } from '../../ui.js';
import { type HeaderDraft, newHeader } from './draft.js';
import { removeAt, replaceAt } from './rows.js';

/** The request's headers: Fixed values are sent as typed, Variable ones resolve `{{name}}` during the call. */
export function HeadersEditor({
  headers,
  onChange,
  failure,
}: {
  headers: HeaderDraft[];
  onChange: (headers: HeaderDraft[]) => void;
  failure: ApiFailure | null;
}) {
  return (
    <fieldset className="tool-rows">
      <legend>Headers</legend>
      <FieldError failure={failure} path="$.headers" />
      {headers.length === 0 ? (
        <p className="hint">No headers. Add one for an API key, or a value taken from the call with {'{{name}}'}.</p>
      ) : (
        <div className="tool-row tool-row-head" aria-hidden="true">
          <span>Key</span>
          <span>Mode</span>
          <span>Value</span>
          <span>Secret</span>
          <span />
        </div>
      )}
      {headers.map((header, i) => {
        const n = i + 1;
        const path = `$.headers[${i}]`;
        const set = (patch: Partial<HeaderDraft>) => onChange(replaceAt(headers, i, { ...header, ...patch }));
        return (
          <div key={header.key} className="tool-row-block">
            <div className="tool-row">
              <input
                aria-label={`Header ${n} key`}
                value={header.name}
                placeholder="Authorization"
                onChange={(e) => set({ name: e.target.value })}
              />
              <select
                aria-label={`Header ${n} mode`}
                value={header.mode}
                onChange={(e) => set({ mode: e.target.value as HeaderDraft['mode'] })}
              >
                <option value="fixed">Fixed</option>
                <option value="variable">Variable</option>
              </select>
              <input
                aria-label={`Header ${n} value`}
                value={header.value}
                placeholder={header.mode === 'variable' ? 'Bearer {{token}}' : ''}
                onChange={(e) => set({ value: e.target.value })}
              />
              <input
                type="checkbox"
                aria-label={`Header ${n} secret`}
                title="Stored encrypted and shown masked. Left unticked on a new header, names like Authorization or *token* are kept secret anyway."
                checked={header.secret ?? false}
                onChange={(e) => set({ secret: e.target.checked })}
              />
              <button
                type="button"
                className="secondary small"
                aria-label={`Remove header ${n}`}
                onClick={() => onChange(removeAt(headers, i))}
              >
                Remove
              </button>
            </div>
            {header.value === SECRET_MASK && (
              <div className="hint">
                A stored secret: leave the dots to keep it, or type a new value (a URL on another host needs it again).
              </div>
            )}
            <FieldError failure={failure} path={`${path}.key`} />
            <FieldError failure={failure} path={`${path}.mode`} />
            <FieldError failure={failure} path={`${path}.value`} />
            <FieldError failure={failure} path={`${path}.secret`} />
          </div>
        );
      })}
      <button type="button" className="secondary small" onClick={() => onChange([...headers, newHeader()])}>
        Add header
      </button>
    </fieldset>
  );
}
