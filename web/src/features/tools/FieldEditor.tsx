import type { ApiFailure, ParameterType } from '../../api.js';
import { Field, FieldError } from '../../ui.js';
import {
  FILL_MODES,
  type FieldDraft,
  type FillMode,
  ITEM_TYPES,
  type ItemType,
  isScalar,
  LOCATIONS,
  type Location,
  MAX_NESTING,
  newField,
  TYPES,
} from './draft.js';
import { ProblemsAt } from './ProblemsAt.js';
import { removeAt, replaceAt } from './rows.js';

interface FieldEditorProps {
  field: FieldDraft;
  onChange: (field: FieldDraft) => void;
  onRemove: () => void;
  /** The field's JSON path in the API's body: `$.parameters[0]`, `$.parameters[0].items.fields[1]`. */
  path: string;
  /** What names the field's controls: `Parameter 1`, `Parameter 1 field 2`, `Parameter 2 item field 1`. */
  label: string;
  /** 1 for a parameter; the API refuses fields below MAX_NESTING. */
  depth: number;
  failure: ApiFailure | null;
}

/** One parameter, or one field of an object or of an array's items, with its own fields below it. */
export function FieldEditor({ field, onChange, onRemove, path, label, depth, failure }: FieldEditorProps) {
  const set = (patch: Partial<FieldDraft>) => onChange({ ...field, ...patch });
  const isParameter = depth === 1;
  const canNest = depth <= MAX_NESTING;
  return (
    <fieldset className="tool-field">
      <legend>
        {label}
        {field.name && <code> {field.name}</code>}
      </legend>
      <FieldError failure={failure} path={path} />
      <div className="tool-field-grid">
        <Field label="Name" path={`${path}.name`} failure={failure}>
          {(id) => (
            <input
              id={id}
              aria-label={`${label} name`}
              value={field.name}
              placeholder="customer_email"
              onChange={(e) => set({ name: e.target.value })}
            />
          )}
        </Field>
        {isParameter && (
          <Field label="Location" path={`${path}.location`} failure={failure}>
            {(id) => (
              <select
                id={id}
                aria-label={`${label} location`}
                value={field.location}
                onChange={(e) => set({ location: e.target.value as Location })}
              >
                {LOCATIONS.map((location) => (
                  <option key={location} value={location}>
                    {location}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <Field label="Type" path={`${path}.type`} failure={failure}>
          {(id) => (
            <select
              id={id}
              aria-label={`${label} type`}
              value={field.type}
              onChange={(e) => set({ type: e.target.value as ParameterType })}
            >
              {TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Fill mode" path={`${path}.fillMode`} failure={failure}>
          {(id) => (
            <select
              id={id}
              aria-label={`${label} fill mode`}
              value={field.fillMode}
              onChange={(e) => set({ fillMode: e.target.value as FillMode })}
            >
              {FILL_MODES.map((mode) => (
                <option key={mode.value} value={mode.value}>
                  {mode.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {field.fillMode !== 'ai' && (
        <Field label="Value" path={`${path}.value`} failure={failure} hint={valueHint(field)}>
          {(id) => (
            <input
              id={id}
              aria-label={`${label} value`}
              value={field.value}
              placeholder={field.fillMode === 'variable' ? '{{customer_id}}' : ''}
              onChange={(e) => set({ value: e.target.value })}
            />
          )}
        </Field>
      )}
      <Field label="Description" path={`${path}.description`} failure={failure}>
        {(id) => (
          <input
            id={id}
            aria-label={`${label} description`}
            value={field.description}
            placeholder={field.fillMode === 'ai' ? 'What the agent should put here' : ''}
            onChange={(e) => set({ description: e.target.value })}
          />
        )}
      </Field>
      <div className="row">
        <label className="inline">
          <input
            type="checkbox"
            aria-label={`${label} required`}
            checked={field.required}
            onChange={(e) => set({ required: e.target.checked })}
          />
          Required
        </label>
        <FieldError failure={failure} path={`${path}.required`} />
      </div>
      {isScalar(field.type) && (
        <AllowedValues
          label={`${label} allowed values`}
          path={`${path}.allowedValues`}
          value={field.allowedValues}
          onChange={(allowedValues) => set({ allowedValues })}
          failure={failure}
        />
      )}
      {!isScalar(field.type) && <ProblemsAt failure={failure} path={`${path}.allowedValues`} />}
      {field.type === 'object' && (
        <NestedFields
          fields={field.fields}
          onChange={(fields) => set({ fields })}
          path={`${path}.fields`}
          parentLabel={label}
          kind="field"
          depth={depth}
          canNest={canNest}
          childFillMode={field.fillMode === 'ai' ? 'ai' : 'fixed'}
          failure={failure}
        />
      )}
      {field.type !== 'object' && <FieldError failure={failure} path={`${path}.fields`} />}
      {field.type === 'array' && (
        <div className="nested">
          <FieldError failure={failure} path={`${path}.items`} />
          <Field label="Item type" path={`${path}.items.type`} failure={failure}>
            {(id) => (
              <select
                id={id}
                aria-label={`${label} item type`}
                value={field.itemType}
                onChange={(e) => set({ itemType: e.target.value as ItemType })}
              >
                {ITEM_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {isScalar(field.itemType) ? (
            <AllowedValues
              label={`${label} item allowed values`}
              path={`${path}.items.allowedValues`}
              value={field.itemAllowedValues}
              onChange={(itemAllowedValues) => set({ itemAllowedValues })}
              failure={failure}
            />
          ) : (
            <NestedFields
              fields={field.itemFields}
              onChange={(itemFields) => set({ itemFields })}
              path={`${path}.items.fields`}
              parentLabel={label}
              kind="item field"
              depth={depth}
              canNest={canNest}
              childFillMode={field.fillMode === 'ai' ? 'ai' : 'fixed'}
              failure={failure}
            />
          )}
        </div>
      )}
      {field.type !== 'array' && <FieldError failure={failure} path={`${path}.items`} />}
      <div className="actions">
        <button type="button" className="secondary small" aria-label={`Remove ${label}`} onClick={onRemove}>
          Remove {isParameter ? 'parameter' : 'field'}
        </button>
      </div>
    </fieldset>
  );
}

function valueHint(field: FieldDraft): string {
  if (field.fillMode === 'variable') return 'Text with {{variable}} references, resolved during the call.';
  if (field.type === 'object' || field.type === 'array') return 'JSON text; may be left empty when fields are given.';
  return `Sent as ${field.type === 'string' ? 'text' : `${field.type} (converted from the text)`}.`;
}

function AllowedValues({
  label,
  path,
  value,
  onChange,
  failure,
}: {
  label: string;
  path: string;
  value: string;
  onChange: (value: string) => void;
  failure: ApiFailure | null;
}) {
  return (
    <Field
      label="Allowed values"
      hint="Comma-separated, e.g. basic, pro; empty allows any value. The agent is told them as an enum."
    >
      {(id) => (
        <>
          <input
            id={id}
            aria-label={label}
            className="allowed-values"
            value={value}
            placeholder="basic, pro"
            onChange={(e) => onChange(e.target.value)}
          />
          <ProblemsAt failure={failure} path={path} />
        </>
      )}
    </Field>
  );
}

function NestedFields({
  fields,
  onChange,
  path,
  parentLabel,
  kind,
  depth,
  canNest,
  childFillMode,
  failure,
}: {
  fields: FieldDraft[];
  onChange: (fields: FieldDraft[]) => void;
  path: string;
  parentLabel: string;
  kind: 'field' | 'item field';
  depth: number;
  canNest: boolean;
  /** AI-filled fields can only sit in an AI-filled object: a new field starts as its parent. */
  childFillMode: FillMode;
  failure: ApiFailure | null;
}) {
  return (
    <div className="nested">
      <FieldError failure={failure} path={path} />
      {fields.map((child, k) => (
        <FieldEditor
          key={child.key}
          field={child}
          onChange={(next) => onChange(replaceAt(fields, k, next))}
          onRemove={() => onChange(removeAt(fields, k))}
          path={`${path}[${k}]`}
          label={`${parentLabel} ${kind} ${k + 1}`}
          depth={depth + 1}
          failure={failure}
        />
      ))}
      {canNest ? (
        <button
          type="button"
          className="secondary small"
          aria-label={`Add ${kind} to ${parentLabel}`}
          onClick={() => onChange([...fields, { ...newField(), fillMode: childFillMode }])}
        >
          Add {kind}
        </button>
      ) : (
        <p className="hint">Objects nest at most {MAX_NESTING} levels deep.</p>
      )}
    </div>
  );
}
