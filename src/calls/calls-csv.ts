import { SIMULATED_CALLER_ID } from '../providers/voice-provider.js';
import type { ExportRow } from './calls.repository.js';

/**
 * The CSV export of calls (GET /v1/calls/export.csv, decision 0041): its columns, and each value
 * written as RFC 4180 says, guarded against formula injection.
 */

/** The columns every export has, in order; the collected data and variables follow. */
export const FIXED_COLUMNS = [
  'id',
  'createdAt',
  'direction',
  'agentId',
  'from',
  'to',
  'status',
  'outcome',
  'endedReason',
  'durationSeconds',
  'summary',
] as const;

// A spreadsheet reads a cell starting with one of these as a formula (OWASP, "CSV Injection").
const FORMULA_START = /^[=+\-@\t\r]/;
// A plain number (a phone number such as +14155550123, a negative count) computes nothing: kept as it is.
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * One field: prefixed with `'` when a spreadsheet would take it for a formula, then quoted when it
 * holds a comma, a quote, CR or LF (quotes doubled), as RFC 4180 says.
 */
export function csvField(value: string): string {
  const safe = FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One record, CRLF-terminated. */
export const csvRecord = (fields: string[]): string => `${fields.map(csvField).join(',')}\r\n`;

/** A value as a cell shows it: text as it is, numbers and booleans written out, anything else as JSON. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The names an agent's `collect` declares, in its order (`agents.collect` as stored). */
function collectNames(collect: unknown[] | undefined): string[] {
  return (collect ?? []).flatMap((field) =>
    field !== null && typeof field === 'object' && typeof (field as { name?: unknown }).name === 'string'
      ? [(field as { name: string }).name]
      : [],
  );
}

export interface CsvColumns {
  header: string[];
  fields(row: ExportRow): string[];
}

/**
 * The export's columns. Collected data differs per agent: an export of one agent whose `collect`
 * declares fields has a column per field (`collected.<name>`, in its order); any other export has
 * one `collectedData` column holding each call's data as JSON. The click-to-call variables are one
 * `variables` column of JSON: they are whatever each request sent.
 */
export function csvColumns(collect: unknown[] | undefined): CsvColumns {
  const names = collectNames(collect);
  const collected = names.length > 0 ? names.map((name) => `collected.${name}`) : ['collectedData'];
  return {
    header: [...FIXED_COLUMNS, ...collected, 'variables'],
    fields: (row) => [
      row.id,
      row.createdAt.toISOString(),
      row.direction,
      row.agentId,
      row.fromNumber ?? SIMULATED_CALLER_ID,
      row.toNumber,
      row.status,
      text(row.outcome),
      text(row.endedReason),
      text(row.durationSeconds),
      text(row.summary),
      ...(names.length > 0 ? names.map((name) => text(row.collectedData[name])) : [text(row.collectedData)]),
      text(row.variables),
    ],
  };
}
