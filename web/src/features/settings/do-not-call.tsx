import { type FormEvent, useState } from 'react';
import { ApiFailure, api, type Page, withQuery } from '../../api.js';
import type { components } from '../../api-types.js';
import { Link, useQueryState } from '../../router.js';
import {
  BackLink,
  ConfirmButton,
  Field,
  FormFailure,
  formatTime,
  Loaded,
  PagedTable,
  useAction,
  useLoad,
  usePager,
} from '../../ui.js';

/** A number on the organization's do-not-call list (docs/interface.md#do-not-call-list). */
export type Suppression = components['schemas']['Suppression'];

/** What `POST /v1/suppressions` with a CSV file answers. */
interface UploadResult {
  received: number;
  added: number;
  alreadyListed: number;
  errors: { line: number; message: string }[];
  errorsOmitted?: number;
}

const PAGE_SIZE = 25;
/** The list's filter under the API's own query name: a prefix of the number. */
const FILTERS = ['phone'] as const;

/**
 * A request whose answer's status matters (201 added, 200 already listed), or whose body is a file:
 * `api()` sends JSON only and hides the status.
 */
async function send<T>(
  method: string,
  path: string,
  body: BodyInit,
  contentType: string,
): Promise<{ status: number; body: T }> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { 'content-type': contentType },
    body,
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const refusal = (json ?? {}) as { code?: string; message?: string; details?: ApiFailure['details'] };
    throw new ApiFailure(
      response.status,
      refusal.code ?? 'api:internal',
      refusal.message ?? (response.statusText || `HTTP ${response.status}`),
      refusal.details,
    );
  }
  return { status: response.status, body: json as T };
}

/** Settings' entry for the list: what it does, and the way to it. */
export function DoNotCallSection() {
  return (
    <section className="card" aria-label="Do-not-call list">
      <h2>Do-not-call list</h2>
      <p className="hint">
        Numbers your organization never calls: campaigns skip them, and click to call, <code>POST /v1/calls</code> and
        test calls refuse them (<code>ctc:013</code>).
      </p>
      <p>
        <Link to="/settings/do-not-call">Open the do-not-call list</Link>
      </p>
    </section>
  );
}

/**
 * `/settings/do-not-call?phone=+1415`: the organization's do-not-call list, newest first, searched by
 * the start of the number (kept in the address); a number added by hand or from a CSV file, removed
 * after a confirmation. Calls to a listed number are refused; campaign contacts with it are skipped.
 */
export function DoNotCallPage() {
  const [filters, setFilters] = useQueryState(FILTERS);
  const [generation, setGeneration] = useState(0);
  const changed = () => setGeneration((g) => g + 1);
  return (
    <>
      <BackLink to="/settings">Settings</BackLink>
      <section className="card dnc-page" aria-label="Do-not-call list">
        <h2>Do-not-call list</h2>
        <p className="hint">
          A number on this list is never called: campaign contacts with it are skipped, and click to call,{' '}
          <code>POST /v1/calls</code> and test calls refuse it with <code>ctc:013</code>. An agent or a campaign can add
          numbers itself, from the outcomes it lists as do-not-call.
        </p>
        <div className="dnc-forms">
          <AddNumber onAdded={changed} />
          <UploadFile onUploaded={changed} />
        </div>
        <SearchBar phone={filters.phone} onSearch={(phone) => setFilters({ phone })} />
        {/* Keyed by the search and each change: another search is another list, loaded from its first page. */}
        <SuppressionsTable key={`${filters.phone}|${generation}`} phone={filters.phone} onChanged={changed} />
      </section>
    </>
  );
}

function SearchBar({ phone, onSearch }: { phone: string; onSearch: (phone: string) => void }) {
  const [draft, setDraft] = useState(phone);
  const [shown, setShown] = useState(phone);
  // The address changed under the field (Back, a link): show the address's value.
  if (shown !== phone) {
    setShown(phone);
    setDraft(phone);
  }
  return (
    <search className="dnc-search" aria-label="Search the do-not-call list">
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          // Typed as it is often written (+1 415-555…): the API searches by digits.
          onSearch(draft.replace(/[\s().-]/g, ''));
        }}
      >
        <Field label="Number starts with">
          {(id) => (
            <input
              id={id}
              value={draft}
              inputMode="tel"
              placeholder="+1415"
              onChange={(event) => setDraft(event.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="secondary">
          Search
        </button>
        {phone && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setDraft('');
              onSearch('');
            }}
          >
            Show every number
          </button>
        )}
      </form>
    </search>
  );
}

function SuppressionsTable({ phone, onChanged }: { phone: string; onChanged: () => void }) {
  const pager = usePager({ inUrl: true });
  const list = useLoad(
    () =>
      api<Page<Suppression> & { total?: number }>(
        'GET',
        withQuery('/v1/suppressions', { phone, cursor: pager.cursor, limit: PAGE_SIZE }),
      ),
    pager.cursor ?? '',
  );
  const remove = useAction();
  return (
    <>
      <FormFailure failure={remove.failure} />
      <Loaded load={list} what="the do-not-call list">
        {(page) => (
          <PagedTable
            page={page}
            pager={pager}
            noun={phone ? ['number matches', 'numbers match'] : ['number', 'numbers']}
            headers={['Number', 'Reason', 'Source', 'Added', '']}
            className="stack dnc-table"
            empty={
              phone ? (
                <>No number on the list starts with {phone}.</>
              ) : (
                <>No numbers on the do-not-call list. Add one above, or upload a CSV file of them.</>
              )
            }
            cells={(item) => (
              <>
                <td data-label="Number">
                  <strong>{item.phone}</strong>
                </td>
                <td data-label="Reason">{item.reason ?? <span className="muted">—</span>}</td>
                <td data-label="Source">
                  {item.source === 'outcome' ? (
                    <>
                      Call outcome
                      {item.callId && (
                        <>
                          {' '}
                          (<Link to={`/calls/${item.callId}`}>the call</Link>)
                        </>
                      )}
                    </>
                  ) : (
                    'Added by hand or API'
                  )}
                </td>
                <td data-label="Added">{formatTime(item.createdAt)}</td>
                <td data-label="" className="dnc-remove">
                  <ConfirmButton
                    label="Remove"
                    question={`Call ${item.phone} again?`}
                    confirmLabel="Yes, remove"
                    danger
                    busy={remove.busy}
                    onConfirm={async () => {
                      const done = await remove.run(() =>
                        api('DELETE', `/v1/suppressions/${encodeURIComponent(item.id)}`),
                      );
                      if (done !== undefined) onChanged();
                    }}
                  />
                </td>
              </>
            )}
          />
        )}
      </Loaded>
    </>
  );
}

/** One number, with an optional reason: 201 when it is new, 200 when it was listed already. */
function AddNumber({ onAdded }: { onAdded: () => void }) {
  const [phone, setPhone] = useState('');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<{ phone: string; added: boolean } | null>(null);
  const add = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    const answer = await add.run(() =>
      send<Suppression>(
        'POST',
        '/v1/suppressions',
        JSON.stringify({ phone: phone.trim(), ...(reason.trim() ? { reason: reason.trim() } : {}) }),
        'application/json',
      ),
    );
    if (!answer) return;
    setDone({ phone: answer.body.phone, added: answer.status === 201 });
    setPhone('');
    setReason('');
    onAdded();
  }

  return (
    <form className="dnc-form" onSubmit={submit} aria-label="Add a number" noValidate>
      <h3>Add a number</h3>
      <Field label="Phone number" path="$.phone" failure={add.failure} hint="In E.164: +14155550123">
        {(id) => <input id={id} value={phone} inputMode="tel" onChange={(e) => setPhone(e.target.value)} />}
      </Field>
      <Field label="Reason (optional)" path="$.reason" failure={add.failure}>
        {(id) => (
          <input
            id={id}
            value={reason}
            maxLength={500}
            placeholder="Asked not to be called"
            onChange={(e) => setReason(e.target.value)}
          />
        )}
      </Field>
      {add.failure && add.failure.details.length === 0 && <FormFailure failure={add.failure} />}
      {done && !add.busy && (
        <div className="notice" role="status">
          {done.added ? `${done.phone} is on the list now.` : `${done.phone} was already on the list.`}
        </div>
      )}
      <div className="actions">
        <button type="submit" disabled={add.busy}>
          {add.busy ? 'Adding…' : 'Add to the list'}
        </button>
      </div>
    </form>
  );
}

/** A CSV file with a `phone` column (and an optional `reason`): what was added, what was listed already, each bad line. */
function UploadFile({ onUploaded }: { onUploaded: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const [result, setResult] = useState<{ name: string; answer: UploadResult } | null>(null);
  const upload = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setResult(null);
    const answer = await upload.run(() => send<UploadResult>('POST', '/v1/suppressions', file, 'text/csv'));
    if (!answer) return;
    setResult({ name: file.name, answer: answer.body });
    setFile(null);
    setInputKey((k) => k + 1);
    onUploaded();
  }

  return (
    <form className="dnc-form" onSubmit={submit} aria-label="Upload a CSV file" noValidate>
      <h3>Upload a CSV file</h3>
      <Field
        label="CSV file"
        hint={
          <>
            A header row with a <code>phone</code> column and, optionally, <code>reason</code>. Numbers already on the
            list stay as they are.
          </>
        }
      >
        {(id) => (
          <input
            key={inputKey}
            id={id}
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          />
        )}
      </Field>
      <FormFailure failure={upload.failure} />
      {result && !upload.busy && <UploadSummary name={result.name} result={result.answer} />}
      <div className="actions">
        <button type="submit" disabled={upload.busy || !file}>
          {upload.busy ? 'Uploading…' : 'Upload'}
        </button>
      </div>
    </form>
  );
}

function UploadSummary({ name, result }: { name: string; result: UploadResult }) {
  const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;
  const rejected = result.errors.length + (result.errorsOmitted ?? 0);
  return (
    <div className="dnc-result" role="status" aria-label={`Upload of ${name}`}>
      <p className={rejected > 0 ? 'dnc-result-head dnc-has-errors' : 'dnc-result-head'}>
        <strong>{name}</strong>: {count(result.received, 'row', 'rows')} read, {count(result.added, 'added', 'added')},{' '}
        {count(result.alreadyListed, 'already listed', 'already listed')}
        {rejected > 0 && <>, {count(rejected, 'row refused', 'rows refused')}</>}.
      </p>
      {result.errors.length > 0 && (
        <div className="table-scroll">
          <table className="dnc-errors" aria-label="Rows refused">
            <thead>
              <tr>
                <th>Line</th>
                <th>Problem</th>
              </tr>
            </thead>
            <tbody>
              {result.errors.map((error) => (
                <tr key={`${error.line}:${error.message}`}>
                  <td>{error.line}</td>
                  <td>{error.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(result.errorsOmitted ?? 0) > 0 && (
        <p className="hint">
          And {count(result.errorsOmitted ?? 0, 'more row', 'more rows')} refused, not listed here: fix the file from
          the lines above and upload it again.
        </p>
      )}
    </div>
  );
}
