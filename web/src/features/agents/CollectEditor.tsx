import type { ApiFailure, CollectType } from '../../api.js';
import { FieldError } from '../../ui.js';
import { COLLECT_PRESETS, type CollectRow, commaList, emptyCollectRow } from './definition.js';

const TYPES: { value: CollectType; label: string }[] = [
  { value: 'string', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'Yes / no' },
  { value: 'enum', label: 'One of' },
];

/**
 * "What the agent collects": the values a call gathers (the outcome's `collectedData`), each with a
 * name, a type and what the provider should listen for. The seed's `name`, `email` and `address`
 * are one click away.
 */
export function CollectEditor({
  rows,
  failure,
  onChange,
}: {
  rows: CollectRow[];
  failure: ApiFailure | null;
  onChange: (rows: CollectRow[]) => void;
}) {
  const setRow = (index: number, patch: Partial<CollectRow>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const names = new Set(rows.map((row) => row.name.trim()));
  return (
    <fieldset className="field" aria-label="What the agent collects">
      <legend>What the agent collects</legend>
      <p className="hint">
        Each value becomes a key of the call's <code>collectedData</code>, typed as declared; trigger conditions can use
        it as <code>collectedData.&lt;name&gt;</code>. The provider extracts them from the conversation when the call
        ends.
      </p>
      {rows.length === 0 && <p className="hint">Nothing yet: calls end with an empty collectedData.</p>}
      <ol className="collect-rows">
        {rows.map((row, index) => {
          const at = `$.collect[${index}]`;
          const n = index + 1;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place, as the API's paths
            <li key={index} className="nested">
              <div className="row">
                <input
                  aria-label={`Collect ${n} name`}
                  placeholder="name"
                  value={row.name}
                  onChange={(e) => setRow(index, { name: e.target.value })}
                />
                <select
                  aria-label={`Collect ${n} type`}
                  value={row.type}
                  onChange={(e) => setRow(index, { type: e.target.value as CollectType })}
                >
                  {TYPES.map((type) => (
                    <option key={type.value} value={type.value}>
                      {type.label}
                    </option>
                  ))}
                </select>
                <label className="inline">
                  <input
                    type="checkbox"
                    aria-label={`Collect ${n} required`}
                    checked={row.required}
                    onChange={(e) => setRow(index, { required: e.target.checked })}
                  />
                  Required
                </label>
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Remove collect ${n}`}
                  onClick={() => onChange(rows.filter((_, i) => i !== index))}
                >
                  Remove
                </button>
              </div>
              <FieldError failure={failure} path={`${at}.name`} />
              <FieldError failure={failure} path={`${at}.type`} />
              <div className="row">
                <input
                  aria-label={`Collect ${n} description`}
                  placeholder="What to listen for, e.g. the email the caller spells out"
                  value={row.description}
                  onChange={(e) => setRow(index, { description: e.target.value })}
                />
              </div>
              <FieldError failure={failure} path={`${at}.description`} />
              {row.type === 'enum' && (
                <>
                  <div className="row">
                    <input
                      aria-label={`Collect ${n} choices`}
                      placeholder="Choices, comma separated: basic, pro, enterprise"
                      value={row.choices}
                      onChange={(e) => setRow(index, { choices: e.target.value })}
                    />
                  </div>
                  <FieldError failure={failure} path={`${at}.choices`} />
                  {commaList(row.choices).map((choice, j) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: the API names each choice by its place
                    <FieldError key={j} failure={failure} path={`${at}.choices[${j}]`} label={choice} />
                  ))}
                </>
              )}
              <FieldError failure={failure} path={at} />
            </li>
          );
        })}
      </ol>
      <FieldError failure={failure} path="$.collect" />
      <div className="row">
        <button type="button" className="secondary small" onClick={() => onChange([...rows, emptyCollectRow()])}>
          Add value
        </button>
        <span className="muted">Presets:</span>
        {COLLECT_PRESETS.map((preset) => (
          <button
            key={preset.name}
            type="button"
            className="secondary small"
            title={preset.description}
            disabled={names.has(preset.name)}
            onClick={() => onChange([...rows, { ...preset }])}
          >
            + {preset.name}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
