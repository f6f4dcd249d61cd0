import { useId } from 'react';
import type { ApiFailure, TriggerCondition } from '../../api.js';
import { FieldError } from '../../ui.js';

export interface TriggerConditions {
  match?: 'all' | 'any';
  conditions: TriggerCondition[];
}

const OPERATORS: { value: string; label: string }[] = [
  { value: 'equals', label: 'equals' },
  { value: 'not_equals', label: 'does not equal' },
  { value: 'in', label: 'is one of' },
  { value: 'not_in', label: 'is none of' },
  { value: 'contains', label: 'contains' },
  { value: 'exists', label: 'exists' },
  { value: 'not_exists', label: 'does not exist' },
  { value: 'gt', label: '>' },
  { value: 'gte', label: '≥' },
  { value: 'lt', label: '<' },
  { value: 'lte', label: '≤' },
];
const LIST_OPERATORS = new Set(['in', 'not_in']);
const NUMBER_OPERATORS = new Set(['gt', 'gte', 'lt', 'lte']);
const NO_VALUE = new Set(['exists', 'not_exists']);

/** A value as the person types it: a list is comma separated, numbers where the comparison is numeric. */
export function valueFromText(field: string, operator: string, text: string): unknown {
  if (NO_VALUE.has(operator)) return undefined;
  const numeric = field === 'durationSeconds' || NUMBER_OPERATORS.has(operator);
  const one = (part: string) => {
    const trimmed = part.trim();
    return numeric && trimmed !== '' && !Number.isNaN(Number(trimmed)) ? Number(trimmed) : trimmed;
  };
  return LIST_OPERATORS.has(operator)
    ? text
        .split(',')
        .map(one)
        .filter((v) => v !== '')
    : one(text);
}

export function valueToText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** Conditions edited as rows; the values are kept as typed text and converted when saved. */
export interface ConditionRow {
  field: string;
  operator: string;
  text: string;
}

export function rowsOf(conditions: TriggerConditions | null): ConditionRow[] {
  return (conditions?.conditions ?? []).map((c) => ({
    field: c.field,
    operator: c.operator,
    text: valueToText(c.value),
  }));
}

export function conditionsOf(match: 'all' | 'any', rows: ConditionRow[]): TriggerConditions | null {
  if (rows.length === 0) return null;
  return {
    match,
    conditions: rows.map(({ field, operator, text }) => {
      const value = valueFromText(field, operator, text);
      return value === undefined ? { field, operator } : { field, operator, value };
    }),
  };
}

/**
 * The trigger-condition builder (docs/interface.md#integrations): which calls' outcomes this integration receives.
 * No conditions means every call.
 */
export function TriggerConditionsEditor({
  match,
  rows,
  outcomes,
  failure,
  onChange,
}: {
  match: 'all' | 'any';
  rows: ConditionRow[];
  outcomes: string[];
  failure: ApiFailure | null;
  onChange: (match: 'all' | 'any', rows: ConditionRow[]) => void;
}) {
  const setRow = (index: number, patch: Partial<ConditionRow>) =>
    onChange(
      match,
      rows.map((row, i) => (i === index ? { ...row, ...patch } : row)),
    );
  const base = '$.triggerConditions';
  const matchId = useId();
  return (
    <fieldset className="field">
      <legend>Trigger conditions</legend>
      {rows.length === 0 ? (
        <p className="hint">Every call's outcome is sent. Add a condition to send only some.</p>
      ) : (
        // Named by the words it shows ("Send when"), so speech input and screen readers use the same name.
        <label className="inline">
          <span id={matchId}>Send when</span>
          <select
            aria-labelledby={matchId}
            value={match}
            onChange={(e) => onChange(e.target.value as 'all' | 'any', rows)}
          >
            <option value="all">all conditions hold</option>
            <option value="any">any condition holds</option>
          </select>
        </label>
      )}
      <datalist id="trigger-fields">
        <option value="status" />
        <option value="durationSeconds" />
        <option value="endedReason" />
        <option value="collectedData." />
        <option value="variables." />
      </datalist>
      <datalist id="trigger-outcomes">
        {outcomes.map((o) => (
          <option key={o} value={o} />
        ))}
      </datalist>
      {rows.map((row, index) => {
        const at = `${base}.conditions[${index}]`;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: conditions have no identity but their place
          <div key={index} className="nested">
            <div className="row">
              <input
                aria-label={`Condition ${index + 1} field`}
                list="trigger-fields"
                placeholder="status, durationSeconds, collectedData.email…"
                value={row.field}
                onChange={(e) => setRow(index, { field: e.target.value })}
              />
              <select
                aria-label={`Condition ${index + 1} operator`}
                value={row.operator}
                onChange={(e) => setRow(index, { operator: e.target.value })}
              >
                {OPERATORS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
              {!NO_VALUE.has(row.operator) && (
                <input
                  aria-label={`Condition ${index + 1} value`}
                  list={row.field === 'status' ? 'trigger-outcomes' : undefined}
                  placeholder={LIST_OPERATORS.has(row.operator) ? 'SOLD, INTERESTED' : 'value'}
                  value={row.text}
                  onChange={(e) => setRow(index, { text: e.target.value })}
                />
              )}
              <button
                type="button"
                className="secondary small"
                onClick={() =>
                  onChange(
                    match,
                    rows.filter((_, i) => i !== index),
                  )
                }
              >
                Remove
              </button>
            </div>
            <FieldError failure={failure} path={at} />
            <FieldError failure={failure} path={`${at}.field`} />
            <FieldError failure={failure} path={`${at}.operator`} />
            <FieldError failure={failure} path={`${at}.value`} />
          </div>
        );
      })}
      <FieldError failure={failure} path={base} />
      <button
        type="button"
        className="secondary small"
        onClick={() => onChange(match, [...rows, { field: 'status', operator: 'in', text: '' }])}
      >
        Add condition
      </button>
    </fieldset>
  );
}
