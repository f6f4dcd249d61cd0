import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { numberPolicyProblems } from '../click-to-call/number-policy.js';
import { checkCallRequestBody } from '../click-to-call/request-body.js';
import { ApiError, type FieldProblem, validationError } from '../errors.js';
import { formatCount } from '../lib/format-count.js';
import { isValidTimeZone } from './calling-window.js';
import { MAX_CSV_BYTES, MAX_CSV_ROWS } from './campaigns.schemas.js';

/**
 * Reading contacts to import (docs/interface.md#campaign-contacts, decision 0048): a CSV upload
 * streamed through csv-parse, a record at a time, or a JSON list; each row checked like click to
 * call's body, against the agent's countries, and for its time zone. Nothing here holds more than
 * one row: the caller stores them in batches.
 */

/** A contact that passed every check, with where it came from. */
export interface ContactRow {
  phone: string;
  variables: Record<string, string>;
  timezone: string | null;
  /** CSV: the file's line the record starts on (the header is line 1). */
  line?: number;
  /** JSON: its position in the list, from 0. */
  index?: number;
}

export interface RowError {
  line?: number;
  index?: number;
  message: string;
}

export type ImportItem = { row: ContactRow } | { error: RowError };

/** How an uploaded file is handed to the route: the body's stream, kept out of sight of the JSON guard. */
export class CsvUpload {
  readonly #stream: Readable;
  constructor(stream: Readable) {
    this.#stream = stream;
  }
  get stream(): Readable {
    return this.#stream;
  }
}

/** "phone must be …; variables.name is …": a row's problems in one sentence. */
function sentence(problems: FieldProblem[]): string {
  return problems
    .map(({ path, message }) => {
      const field = path.replace(/^\$\.?/, '');
      return field ? `${field} ${message}` : message;
    })
    .join('; ');
}

/**
 * The checks of one contact: the body check of click to call (E.164 phone, variables), the
 * numbers click to call never dials and the agent's countries, and the time zone.
 */
export function checkContact(
  phone: unknown,
  variables: unknown,
  timezone: unknown,
  allowedCountries: readonly string[] | null,
):
  | { ok: true; phone: string; variables: Record<string, string>; timezone: string | null }
  | { ok: false; message: string } {
  const checked = checkCallRequestBody({ phone, variables: variables ?? {} });
  if (!checked.ok) return { ok: false, message: sentence(checked.details) };
  const policy = numberPolicyProblems(checked.phone, allowedCountries);
  if (policy.length > 0) return { ok: false, message: sentence(policy) };
  let zone: string | null = null;
  if (timezone !== undefined && timezone !== null && timezone !== '') {
    if (typeof timezone !== 'string' || !isValidTimeZone(timezone)) {
      return { ok: false, message: 'timezone must be an IANA time zone name such as America/New_York' };
    }
    zone = timezone;
  }
  return { ok: true, phone: checked.phone, variables: checked.variables, timezone: zone };
}

const rowOf = (
  { phone, variables, timezone }: { phone: string; variables: Record<string, string>; timezone: string | null },
  at: { line: number } | { index: number },
): ContactRow => ({ phone, variables, timezone, ...at });

const CONTACT_FIELDS = new Set(['phone', 'variables', 'timezone']);

/** The contacts of a JSON request, checked one by one. */
export function* readJsonContacts(items: unknown[], allowedCountries: readonly string[] | null): Generator<ImportItem> {
  for (const [index, item] of items.entries()) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      yield { error: { index, message: 'must be an object {phone, variables?, timezone?}' } };
      continue;
    }
    const contact = item as Record<string, unknown>;
    const unknown = Object.keys(contact).find((key) => !CONTACT_FIELDS.has(key));
    if (unknown !== undefined) {
      yield { error: { index, message: `${unknown} is not a contact field; put it in variables` } };
      continue;
    }
    const checked = checkContact(contact.phone, contact.variables, contact.timezone, allowedCountries);
    yield checked.ok ? { row: rowOf(checked, { index }) } : { error: { index, message: checked.message } };
  }
}

/** Lines a record spans beyond its first: the line ends inside its quoted fields. */
function extraLines(fields: string[]): number {
  let sum = 0;
  for (const field of fields) {
    // Most fields hold no line end: a scan for one is cheaper than a match list for every field.
    if (field.includes('\n') || field.includes('\r')) sum += field.match(/\r\n|\r|\n/g)?.length ?? 0;
  }
  return sum;
}

/** The upload is larger than the API takes: nothing of it is stored. */
export const tooLarge = (what: string) =>
  validationError([{ path: '$', message: `The upload is too large: ${what}; split it into several uploads` }]);

/**
 * The contacts of a CSV upload, checked one by one as they are read: the header names a `phone`
 * column (any case), optionally `timezone`; every other column is a variable named by its header.
 * Throws `api:validation` when the header has no `phone` column (before any row is read), when the
 * file cannot be read as CSV, or when it is larger than `MAX_CSV_BYTES` / `MAX_CSV_ROWS`.
 */
export async function* readCsvContacts(
  stream: Readable,
  allowedCountries: readonly string[] | null,
  limits: { maxBytes?: number; maxRows?: number } = {},
): AsyncGenerator<ImportItem> {
  const maxBytes = limits.maxBytes ?? MAX_CSV_BYTES;
  const maxRows = limits.maxRows ?? MAX_CSV_ROWS;
  let bytes = 0;
  let overBytes = false;
  const parser = parse({
    bom: true,
    info: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: 1024 * 1024,
  });
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes && !overBytes) {
      overBytes = true;
      stream.unpipe(parser);
      parser.destroy(tooLarge(`more than ${maxBytes / 1024 / 1024} MiB`));
    }
  };
  stream.on('data', onData);
  stream.on('error', (error) => parser.destroy(error));
  stream.pipe(parser);

  let header: { phone: number; timezone: number; variables: [number, string][]; width: number } | undefined;
  let rows = 0;
  // Line numbers counted here: csv-parse counts a CRLF inside a quoted field as two lines.
  let endLine = 0;
  let emptyLines = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { empty_lines: number } }>) {
      const line = endLine + 1 + (info.empty_lines - emptyLines);
      emptyLines = info.empty_lines;
      endLine = line + extraLines(record);
      if (!header) {
        const names = record.map((name) => name.trim());
        const phone = names.findIndex((name) => name.toLowerCase() === 'phone');
        if (phone < 0) {
          throw validationError([
            {
              path: '$',
              message: 'The CSV header has no phone column: its first line must name the columns, one of them phone',
            },
          ]);
        }
        const timezone = names.findIndex((name) => name.toLowerCase() === 'timezone');
        // A column with no name (a trailing comma) holds no variable: it is left out.
        const variables = names.flatMap((name, i) =>
          i === phone || i === timezone || name === '' ? [] : [[i, name] as [number, string]],
        );
        const twice = names.find((name, i) => name !== '' && names.indexOf(name) !== i);
        if (
          twice !== undefined ||
          names.filter((name) => /^(phone|timezone)$/i.test(name)).length > (timezone >= 0 ? 2 : 1)
        ) {
          throw validationError([
            {
              path: '$',
              message: `The CSV header names the column ${JSON.stringify(twice ?? 'phone or timezone')} twice`,
            },
          ]);
        }
        header = { phone, timezone, variables, width: names.length };
        continue;
      }
      rows += 1;
      if (rows > maxRows) throw tooLarge(`more than ${formatCount(maxRows)} rows`);
      if (record.length > header.width) {
        yield { error: { line, message: `has ${record.length} fields; the header names ${header.width} columns` } };
        continue;
      }
      const variables: Record<string, string> = {};
      for (const [i, name] of header.variables) variables[name] = record[i] ?? '';
      const zone = header.timezone >= 0 ? (record[header.timezone] ?? '').trim() : '';
      const checked = checkContact((record[header.phone] ?? '').trim(), variables, zone, allowedCountries);
      yield checked.ok ? { row: rowOf(checked, { line }) } : { error: { line, message: checked.message } };
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('CSV_')) {
      throw validationError([{ path: '$', message: `The file cannot be read as CSV: ${(error as Error).message}` }]);
    }
    throw error;
  } finally {
    stream.off('data', onData);
    if (!stream.readableEnded) {
      stream.unpipe(parser);
      stream.resume();
    }
  }
  if (!header)
    throw validationError([
      { path: '$', message: 'The file is empty: its first line must name the columns, one of them phone' },
    ]);
}
