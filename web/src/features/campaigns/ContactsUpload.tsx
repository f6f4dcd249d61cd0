import { useId, useState } from 'react';
import type { ApiFailure } from '../../api.js';
import { countOf, FormFailure, useAction } from '../../ui.js';
import { Panel } from '../calls/parts.js';
import { type Campaign, type ImportResult, uploadContacts } from './types.js';

/**
 * Contacts from a CSV file, in two steps: choosing the file checks it (`?dryRun=true`: nothing is
 * stored) and shows its first rows as the API read them and every row it refuses, by line; then
 * "Add N contacts" sends the same file for real. The file goes as it is: the API parses it.
 */
export function ContactsUpload({ campaign, onAdded }: { campaign: Campaign; onAdded: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [checked, setChecked] = useState<ImportResult | null>(null);
  const [added, setAdded] = useState<ImportResult | null>(null);
  /** A new input after each upload, so the same file can be chosen again. */
  const [inputKey, setInputKey] = useState(0);
  const check = useAction();
  const add = useAction();
  const inputId = useId();
  const hintId = useId();

  const choose = async (chosen: File | null) => {
    setFile(chosen);
    setChecked(null);
    setAdded(null);
    add.clear();
    if (!chosen) return;
    const result = await check.run(() => uploadContacts(campaign.id, chosen, true));
    if (result) setChecked(result);
  };

  const send = async () => {
    if (!file) return;
    const result = await add.run(() => uploadContacts(campaign.id, file, false));
    if (!result) return;
    setAdded(result);
    setChecked(null);
    setFile(null);
    setInputKey((k) => k + 1);
    onAdded();
  };

  const valid = checked ? Math.max(0, checked.received - checked.errors.length - (checked.errorsOmitted ?? 0)) : 0;
  return (
    <Panel title="Add contacts">
      <p className="hint" id={hintId}>
        A CSV file with a header row: a <code>phone</code> column (international format, like +14155550123), an optional{' '}
        <code>timezone</code> column (like Europe/Berlin) for contacts outside the campaign's time zone, and any other
        column as a variable the agent can use. A number already in the campaign is updated, not added twice.
      </p>
      <div className="field">
        <label htmlFor={inputId}>CSV file</label>
        <input
          key={inputKey}
          id={inputId}
          type="file"
          accept=".csv,text/csv"
          aria-describedby={hintId}
          onChange={(event) => choose(event.target.files?.[0] ?? null)}
        />
      </div>
      {check.busy && (
        <p className="loading" aria-busy="true">
          Checking {file?.name}…
        </p>
      )}
      <UploadFailure failure={check.failure} />
      {checked && (
        <CheckedFile
          result={checked}
          fileName={file?.name ?? ''}
          valid={valid}
          busy={add.busy}
          onAdd={send}
          onDiscard={() => {
            setChecked(null);
            setFile(null);
            setInputKey((k) => k + 1);
          }}
        />
      )}
      <UploadFailure failure={add.failure} />
      {added && (
        <div className="notice" role="status">
          Added {countOf(added.added, 'contact', 'contacts')}
          {added.merged > 0 && `; ${countOf(added.merged, 'number was', 'numbers were')} already in the campaign`}
          {added.errors.length + (added.errorsOmitted ?? 0) > 0 &&
            `; ${countOf(added.errors.length + (added.errorsOmitted ?? 0), 'row was', 'rows were')} skipped`}
          .
        </div>
      )}
    </Panel>
  );
}

function UploadFailure({ failure }: { failure: ApiFailure | null }) {
  return <FormFailure failure={failure} />;
}

/** What the check found: how many rows, the first ones as read, every refused row with its line. */
function CheckedFile({
  result,
  fileName,
  valid,
  busy,
  onAdd,
  onDiscard,
}: {
  result: ImportResult;
  fileName: string;
  valid: number;
  busy: boolean;
  onAdd: () => void;
  onDiscard: () => void;
}) {
  const problems = result.errors.length + (result.errorsOmitted ?? 0);
  const preview = result.preview ?? [];
  const variableNames = [...new Set(preview.flatMap((row) => Object.keys(row.variables)))];
  const hasZone = preview.some((row) => row.timezone);
  return (
    <div className="campaign-check">
      <p role="status">
        <strong>{fileName}</strong>: {countOf(result.received, 'row', 'rows')} read,{' '}
        {countOf(valid, 'contact', 'contacts')} to add
        {result.merged > 0 && ` (${result.merged.toLocaleString()} already in the campaign, to be updated)`}
        {problems > 0 && `, ${countOf(problems, 'row', 'rows')} with a problem, to be skipped`}. Nothing is stored yet.
      </p>
      {preview.length > 0 && (
        <>
          <h3>First rows</h3>
          <div className="table-scroll">
            <table aria-label="First rows" className="stack campaign-preview">
              <thead>
                <tr>
                  <th>Line</th>
                  <th>Phone</th>
                  {hasZone && <th>Time zone</th>}
                  {variableNames.map((name) => (
                    <th key={name}>{name}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {preview.map((row) => (
                  <tr key={`${row.line ?? row.index}-${row.phone}`}>
                    <td data-label="Line">{row.line ?? (row.index ?? 0) + 1}</td>
                    <td data-label="Phone">{row.phone}</td>
                    {hasZone && <td data-label="Time zone">{row.timezone ?? '—'}</td>}
                    {variableNames.map((name) => (
                      <td key={name} data-label={name}>
                        {showCell(row.variables[name])}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {result.errors.length > 0 && (
        <>
          <h3>Rows with a problem</h3>
          <div className="table-scroll">
            <table aria-label="Rows with a problem" className="campaign-row-errors">
              <thead>
                <tr>
                  <th>Line</th>
                  <th>Problem</th>
                </tr>
              </thead>
              <tbody>
                {result.errors.map((error, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a line may have several problems; the order is the file's
                  <tr key={i}>
                    <td>{error.line ?? (error.index ?? 0) + 1}</td>
                    <td className="error">{error.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {(result.errorsOmitted ?? 0) > 0 && (
            <p className="hint">
              And {countOf(result.errorsOmitted ?? 0, 'more row', 'more rows')} with a problem, not listed.
            </p>
          )}
        </>
      )}
      <div className="actions">
        {valid > 0 ? (
          <button type="button" disabled={busy} onClick={onAdd}>
            {busy ? 'Adding…' : `Add ${countOf(valid, 'contact', 'contacts')}`}
          </button>
        ) : (
          <span className="hint">No row can be added: correct the file and choose it again.</span>
        )}
        <button type="button" className="secondary" onClick={onDiscard}>
          Choose another file
        </button>
      </div>
    </div>
  );
}

function showCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
