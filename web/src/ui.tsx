import { Fragment, type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import { ApiFailure } from './api.js';
import { Link, navigate, useLocation } from './router.js';

/**
 * How long a load refused for now waits before it asks again by itself: what the answer's
 * `Retry-After` said, for a 503 (not answerable yet, e.g. statistics still being rolled up) or a 429,
 * kept between 5 s and 5 min so that no answer can make a page ask in a loop or never again.
 */
export function loadRetryDelayMs(failure: ApiFailure): number | null {
  if ((failure.status !== 503 && failure.status !== 429) || failure.retryAfterSeconds === null) return null;
  return Math.min(Math.max(failure.retryAfterSeconds, 5), 300) * 1000;
}

/**
 * Loads something once per `key` and on `reload()`; a failure is kept to be shown, not thrown. A
 * failure that says when to ask again (`loadRetryDelayMs`) is asked again then, while the page is open.
 */
export function useLoad<T>(load: () => Promise<T>, key: string) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const latest = useRef(load);
  latest.current = load;
  const [generation, setGeneration] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` and `generation` say when to load again
  useEffect(() => {
    let current = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    latest.current().then(
      (value) => {
        if (!current) return;
        setData(value);
        setFailure(null);
      },
      (error: unknown) => {
        if (!current) return;
        const refused = asFailure(error);
        const delayMs = loadRetryDelayMs(refused);
        if (delayMs === null) return setFailure(refused);
        setFailure(refused.retrying(new Date(Date.now() + delayMs)));
        retry = setTimeout(() => setGeneration((g) => g + 1), delayMs);
      },
    );
    return () => {
      current = false;
      clearTimeout(retry);
    };
  }, [key, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data, failure, reload, setData };
}

/** An action started by a person (save, rotate, send): whether it runs, and why it failed. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setFailure(null);
    try {
      return await action();
    } catch (error) {
      setFailure(asFailure(error));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, failure, run, clear: () => setFailure(null) };
}

export function asFailure(error: unknown): ApiFailure {
  return error instanceof ApiFailure ? error : new ApiFailure(0, 'network', String(error));
}

/**
 * A problem said on its own beside its field, as a sentence: the API's older messages are worded
 * to follow the field's name ("is required"), its newer ones are sentences ("At least 1").
 */
const sentence = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The API's problem at one JSON path (`$.name`), shown beside its field; `label` names an item of a list. */
export function FieldError({
  failure,
  path,
  label,
}: {
  failure: ApiFailure | null | undefined;
  path: string;
  label?: string;
}) {
  const messages = failure?.details.filter((d) => d.path === path).map((d) => d.message) ?? [];
  if (messages.length === 0) return null;
  const text = messages.join('; ');
  return (
    <div className="error" role="alert" data-path={path}>
      {label ? `${label}: ${text}` : sentence(text)}
    </div>
  );
}

/**
 * The API's problems at paths inside `path` (`$.providerSettings.voice.speed` inside
 * `$.providerSettings`), each named by where it is: for values edited as a whole (JSON text).
 */
export function FieldErrorsUnder({ failure, path }: { failure: ApiFailure | null | undefined; path: string }) {
  const inside = (failure?.details ?? [])
    .map((detail) => detail.path)
    .filter((at) => at.startsWith(`${path}.`) || at.startsWith(`${path}[`));
  return (
    <>
      {[...new Set(inside)].map((at) => (
        <FieldError key={at} failure={failure} path={at} label={at.slice(path.length).replace(/^\./, '')} />
      ))}
    </>
  );
}

/** A labelled control with its hint and the API's error for its path. */
export function Field({
  label,
  path,
  failure,
  hint,
  children,
}: {
  label: ReactNode;
  path?: string;
  failure?: ApiFailure | null;
  hint?: ReactNode;
  children: (id: string) => ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
      {hint && <div className="hint">{hint}</div>}
      {path && <FieldError failure={failure} path={path} />}
    </div>
  );
}

/** A write-only value's input: hidden as it is typed, and never filled in by the browser. */
export function SecretInput({
  id,
  value,
  onChange,
  placeholder,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
}) {
  return (
    <input
      id={id}
      type="password"
      autoComplete="off"
      value={value}
      placeholder={placeholder}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** A whole form's refusal: the API's message, and each problem with the field it names. */
export function FormFailure({ failure }: { failure: ApiFailure | null | undefined }) {
  if (!failure) return null;
  return (
    <div className="error banner" role="alert">
      <strong>{failure.message}</strong>
      {failure.details.length > 0 && (
        <ul>
          {failure.details.map((d) => (
            <li key={`${d.path}:${d.message}`}>
              <code>{d.path}</code> {d.message}
            </li>
          ))}
        </ul>
      )}
      {failure.retryAt && (
        <p className="retrying">
          Trying again by itself at{' '}
          <time dateTime={failure.retryAt.toISOString()}>{failure.retryAt.toLocaleTimeString()}</time>.
        </p>
      )}
    </div>
  );
}

/** What a list looks like before it has anything: what it is for and what to do next. */
export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" aria-busy="true">
      Loading {what}…
    </p>
  );
}

/** Copies text to the clipboard, also where the page is not a secure context (plain http). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" className="secondary small" onClick={copy} aria-label={`${label}`}>
      {copied ? 'Copied' : label}
    </button>
  );
}

/**
 * A secret shown masked until revealed, then with a copy button. It is fetched only when revealed
 * (lists never carry secrets), and forgotten when hidden.
 */
export function SecretValue({ label, load }: { label: string; load: () => Promise<string> }) {
  const [value, setValue] = useState<string | null>(null);
  const reveal = useAction();
  return (
    <span className="secret">
      <code title={label}>{value ?? '••••••••••••••••••••••••'}</code>
      <button
        type="button"
        className="secondary small"
        disabled={reveal.busy}
        onClick={async () => {
          if (value !== null) return setValue(null);
          const loaded = await reveal.run(load);
          if (loaded !== undefined) setValue(loaded);
        }}
      >
        {value !== null ? 'Hide' : 'Reveal'}
      </button>
      {value !== null && <CopyButton text={value} label={`Copy ${label}`} />}
      {reveal.failure && <span className="error">{reveal.failure.message}</span>}
    </span>
  );
}

/** A button whose action asks first: "Rotate" → "Rotate now? [Yes, rotate] [Cancel]". */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  busy,
  danger,
}: {
  label: string;
  question: ReactNode;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  busy?: boolean;
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={danger ? 'danger' : 'secondary'} onClick={() => setAsking(true)} disabled={busy}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <span>{question}</span>
      <button
        type="button"
        className={danger ? 'danger' : undefined}
        disabled={busy}
        onClick={async () => {
          await onConfirm();
          setAsking(false);
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/**
 * Cursor paging for `{data, nextCursor}` lists: the cursors of the pages already seen make
 * "Previous" possible without the API having to page backwards. With `inUrl`, the page's cursor is
 * the address's `?cursor=` (a link or a reload shows the same page; Back goes to the page before)
 * and the cursors seen before it ride in the history entry's state; opened from a link, those are
 * unknown, so the page has no number and "Previous" goes back to the first page.
 */
export function usePager({ inUrl = false }: { inUrl?: boolean } = {}) {
  const [memory, setMemory] = useState<string[]>([]);
  const { path, query } = useLocation();
  if (!inUrl) {
    return {
      cursor: memory.at(-1),
      page: (memory.length + 1) as number | null,
      next: (nextCursor: string) => setMemory([...memory, nextCursor]),
      previous: () => setMemory(memory.slice(0, -1)),
      reset: () => setMemory([]),
    };
  }
  const cursor = query.get('cursor') ?? undefined;
  const seen = (history.state as { cursors?: unknown } | null)?.cursors;
  const known = Array.isArray(seen) && seen.at(-1) === cursor ? (seen as string[]) : undefined;
  const cursors = cursor === undefined ? [] : known;
  const go = (stack: string[]) => {
    const next = new URLSearchParams(query);
    next.delete('cursor');
    const last = stack.at(-1);
    if (last !== undefined) next.set('cursor', last);
    const text = next.toString();
    navigate(text ? `${path}?${text}` : path, { state: { cursors: stack } });
  };
  return {
    cursor,
    page: cursors ? cursors.length + 1 : null,
    next: (nextCursor: string) => go([...(cursors ?? (cursor ? [cursor] : [])), nextCursor]),
    previous: () => go(cursors ? cursors.slice(0, -1) : []),
    reset: () => go([]),
  };
}

export function Pager({
  pager,
  nextCursor,
}: {
  pager: ReturnType<typeof usePager>;
  nextCursor: string | null | undefined;
}) {
  if (pager.cursor === undefined && !nextCursor) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={pager.cursor === undefined} onClick={pager.previous}>
        Previous
      </button>
      <span>{pager.page === null ? 'A later page' : `Page ${pager.page}`}</span>
      <button
        type="button"
        className="secondary"
        disabled={!nextCursor}
        onClick={() => nextCursor && pager.next(nextCursor)}
      >
        Next
      </button>
    </nav>
  );
}

/**
 * A list's total as its line above the table says it: "1 agent", "26 agents", or, for a list that
 * stops counting at 10,000 (decision 0053), "10,000+ calls".
 */
export function totalText(total: number, capped: boolean | undefined, [one, many]: [string, string]): string {
  return capped ? `${total.toLocaleString()}+ ${many}` : countOf(total, one, many);
}

/** "1 call", "1,204 calls": a number with its noun. */
export function countOf(total: number, one: string, many: string): string {
  return `${total.toLocaleString()} ${total === 1 ? one : many}`;
}

/**
 * One page of a cursor-paged list as a table: the empty state when the first page has nothing,
 * else how many the list holds ("12 agents", when the API counts them), a row per item (`cells`
 * gives its `<td>`s) and the pager. The table scrolls inside its card when it is wider than the
 * screen, rather than widening the page.
 */
export function PagedTable<T extends { id: string }>({
  page,
  pager,
  empty,
  headers,
  cells,
  className,
  noun,
}: {
  page: { data: T[]; nextCursor: string | null; total?: number; totalCapped?: boolean };
  pager: ReturnType<typeof usePager>;
  empty: ReactNode;
  headers: string[];
  cells: (item: T) => ReactNode;
  /** `stack`: rows stack on a phone's width, each cell under its `data-label`. */
  className?: string;
  /** What one row is, singular and plural, for the total: `['agent', 'agents']`. */
  noun?: [string, string];
}) {
  if (page.data.length === 0 && pager.cursor === undefined) return <Empty>{empty}</Empty>;
  return (
    <>
      {noun && typeof page.total === 'number' && (
        <p className="list-total" aria-live="polite">
          {totalText(page.total, page.totalCapped, noun)}
        </p>
      )}
      <div className="table-scroll">
        <table className={className}>
          <thead>
            <tr>
              {headers.map((header) => (
                <th key={header}>{header}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {page.data.map((item) => (
              <tr key={item.id}>{cells(item)}</tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager pager={pager} nextCursor={page.nextCursor} />
    </>
  );
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** A state shown as a coloured badge: `delivered`, `failed`, `pending`, `synced`… */
export function Badge({ value }: { value: string }) {
  return <span className={`badge badge-${value.toLowerCase().replace(/[^a-z_]/g, '')}`}>{value}</span>;
}

/**
 * Asks again `delayMs` after each answer (a new `data` or a new `failure` from `useLoad`), so a slow
 * answer never overlaps the next request. `null` stops it; so does unmounting.
 */
export function usePolling(reload: () => void, delayMs: number | null, data: unknown, failure: unknown): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new answer is what schedules the next request
  useEffect(() => {
    if (delayMs === null) return;
    const timer = setTimeout(reload, delayMs);
    return () => clearTimeout(timer);
  }, [reload, delayMs, data, failure]);
}

/** One labelled value of a `<dl className="facts">`: the label above the value. */
export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * The end of a form: the API's refusal with each problem, "Saved." once saved, the Save button
 * (saying so while it saves), and the form's other actions.
 */
export function SaveBar({
  failure,
  saved,
  busy,
  children,
}: {
  failure: ApiFailure | null | undefined;
  saved: boolean;
  busy: boolean;
  children?: ReactNode;
}) {
  return (
    <>
      <FormFailure failure={failure} />
      {saved && !busy && (
        <div className="notice" role="status">
          Saved.
        </div>
      )}
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        {children}
      </div>
    </>
  );
}

/** What `useLoad` gave: why it failed, "Loading…" until it answers, then `children` with the data. */
export function Loaded<T>({
  load,
  what,
  children,
}: {
  load: { data: T | undefined; failure: ApiFailure | null };
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (load.data !== undefined) {
    return (
      <>
        <FormFailure failure={load.failure} />
        {children(load.data)}
      </>
    );
  }
  return load.failure ? <FormFailure failure={load.failure} /> : <Loading what={what} />;
}

/**
 * A card of items that are each edited in a form of their own, with an "Add" button that opens one
 * more, empty, form at the end (integrations, provider credentials). `renderNew` gets what closes
 * the new form: `saved` (which also reloads the list) and `cancel`.
 */
export function FormList<T extends { id: string }>({
  label,
  title,
  addLabel,
  what,
  load,
  empty,
  renderItem,
  renderNew,
}: {
  label: string;
  title: ReactNode;
  addLabel: string;
  what: string;
  load: { data: { data: T[] } | undefined; failure: ApiFailure | null; reload: () => void };
  empty: ReactNode;
  renderItem: (item: T) => ReactNode;
  renderNew: (close: { saved: () => void; cancel: () => void }) => ReactNode;
}) {
  const [adding, setAdding] = useState(false);
  return (
    <section className="card" aria-label={label}>
      <div className="toolbar">
        {title}
        {!adding && (
          <button type="button" onClick={() => setAdding(true)}>
            {addLabel}
          </button>
        )}
      </div>
      <Loaded load={load} what={what}>
        {(page) => (
          <>
            {page.data.length === 0 && !adding && <Empty>{empty}</Empty>}
            {page.data.map((item) => (
              <Fragment key={item.id}>{renderItem(item)}</Fragment>
            ))}
            {adding &&
              renderNew({
                saved: () => {
                  setAdding(false);
                  load.reload();
                },
                cancel: () => setAdding(false),
              })}
          </>
        )}
      </Loaded>
    </section>
  );
}

/** The way back from a detail page to its list, above the page's title: "← Agents". */
export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <p className="back">
      <Link to={to}>← {children}</Link>
    </p>
  );
}

/**
 * An id, a URL or a token shown whole: it wraps anywhere rather than pushing the page wider than a
 * phone, with a button that copies it exactly (decision 0044).
 */
export function LongId({ value, label }: { value: string; label: string }) {
  return (
    <span className="long-id">
      <code>{value}</code>
      <CopyButton text={value} label={label} />
    </span>
  );
}
