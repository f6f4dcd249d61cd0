import type { ApiFailure } from '../../api.js';
import { FieldError } from '../../ui.js';
import { newVariable, type VariableDraft } from './draft.js';
import { removeAt, replaceAt } from './rows.js';

/** The names `{{…}}` may use, each with the value it takes when the call provides none. */
export function VariablesEditor({
  variables,
  onChange,
  failure,
}: {
  variables: VariableDraft[];
  onChange: (variables: VariableDraft[]) => void;
  failure: ApiFailure | null;
}) {
  return (
    <fieldset className="tool-rows">
      <legend>Variables</legend>
      <p className="hint">
        {'{{name}}'} in a header or a Variable value takes, in order: a value collected earlier in the call, the
        call&apos;s click-to-call variable, the default below, else nothing.
      </p>
      <FieldError failure={failure} path="$.variables" />
      {variables.map((variable, i) => {
        const n = i + 1;
        const path = `$.variables[${i}]`;
        const set = (patch: Partial<VariableDraft>) => onChange(replaceAt(variables, i, { ...variable, ...patch }));
        return (
          <div key={variable.key} className="tool-row-block">
            <div className="tool-row tool-row-variable">
              <input
                aria-label={`Variable ${n} name`}
                value={variable.name}
                placeholder="customer_id"
                onChange={(e) => set({ name: e.target.value })}
              />
              <input
                aria-label={`Variable ${n} default value`}
                value={variable.defaultValue}
                placeholder="default value (optional)"
                onChange={(e) => set({ defaultValue: e.target.value })}
              />
              <button
                type="button"
                className="secondary small"
                aria-label={`Remove variable ${n}`}
                onClick={() => onChange(removeAt(variables, i))}
              >
                Remove
              </button>
            </div>
            <FieldError failure={failure} path={`${path}.name`} />
            <FieldError failure={failure} path={`${path}.defaultValue`} />
          </div>
        );
      })}
      <button type="button" className="secondary small" onClick={() => onChange([...variables, newVariable()])}>
        Add variable
      </button>
    </fieldset>
  );
}
