import { type Readable, Transform } from 'node:stream';
import { parse } from 'csv-parse';

/** A data row of the file with its line (the header is line 1), or why reading stopped there. */
export type CsvItem =
  | { kind: 'row'; line: number; phone: string; reason: string | undefined }
  | { kind: 'stopped'; line: number; message: string };

/** The file has no header, or its header has no `phone` column: nothing is read (422). */
export class MissingPhoneColumn extends Error {
  override name = 'MissingPhoneColumn';
  /** The header's column names as read (lower case); undefined: the file is empty. */
  constructor(readonly header: string[] | undefined) {
    super(header ? 'The header has no phone column' : 'The file is empty');
  }
}

/** More bytes than an upload may have, found while reading (a body sent without Content-Length). */
class UploadTooLarge extends Error {
  override name = 'UploadTooLarge';
}

/** The longest field a row may have (characters): far beyond a number or a reason, well short of the upload. */
const MAX_FIELD = 64 * 1024;

/** Why the text stopped being CSV, in words. */
function notCsv(error: Error & { code?: string }): string {
  const reason =
    error.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quote opened here is never closed'
      : error.code === 'CSV_MAX_RECORD_SIZE'
        ? `a field is over ${MAX_FIELD / 1024} KiB`
        : error.message.slice(0, 120);
  return `not CSV from here (${reason}): the rest of the file was not read`;
}

/**
 * How many lines a record's raw text took, its own line end included. csv-parse's `info.lines` is
 * off after a quoted field with a CRLF inside, so lines are counted here from the raw text, whose
 * end holds all or part of the record's line end.
 */
function linesOf(raw: string): number {
  const body = raw.endsWith('\r\n') ? raw.slice(0, -2) : /[\r\n]$/.test(raw) ? raw.slice(0, -1) : raw;
  let lines = 1;
  for (let i = body.indexOf('\n'); i !== -1; i = body.indexOf('\n', i + 1)) lines++;
  return lines;
}

/**
 * Reads a do-not-call upload as it arrives (csv-parse, never the whole file in memory): a header
 * with a `phone` column in any case and optionally `reason` (other columns are ignored), UTF-8 with
 * or without a BOM, quoted fields. Yields each data row with its line; blank rows are left out.
 * Throws `MissingPhoneColumn` before any row when there is no such column. Text that is not CSV past
 * repair (a quote never closed, a field over 64 KiB) or more than `maxBytes` ends the reading with
 * a `stopped` item at the line reached. Stopping early (`return`) stops reading the body.
 */
export async function* readSuppressionCsv(body: Readable, { maxBytes }: { maxBytes: number }): AsyncGenerator<CsvItem> {
  let columns: string[] | undefined;
  const parser = parse({
    bom: true,
    // The first `phone` and `reason` columns, whatever their case; every other column is skipped.
    columns: (header: string[]) => {
      const names = header.map((name) => String(name).trim().toLowerCase());
      columns = names;
      return names.map((name, i) =>
        (name === 'phone' || name === 'reason') && names.indexOf(name) === i ? name : false,
      );
    },
    relax_column_count: true,
    relax_quotes: true,
    max_record_size: MAX_FIELD,
    raw: true,
    // A record past repair is told by a `skip` event, not an error: an error would drop the good
    // records parsed before it but not read yet. Reading stops at the first.
    skip_records_with_error: true,
  });
  let broken: { records: number; message: string } | undefined;
  parser.on('skip', (error: Error & { code?: string; records?: number }) => {
    broken ??= { records: error.records ?? 0, message: notCsv(error) };
  });
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? new UploadTooLarge() : null, chunk);
    },
  });
  // Piped by hand, not with `pipeline`: stopping early must not destroy the request, whose socket
  // still carries the answer. Errors reach the parser, and so the loop below.
  body.on('error', (error) => parser.destroy(error));
  counter.on('error', (error) => parser.destroy(error));
  body.pipe(counter).pipe(parser);
  let line = 2;
  let records = 0;
  try {
    for await (const { record, raw } of parser as AsyncIterable<{ record: Record<string, string>; raw: string }>) {
      if (broken && records >= broken.records) break;
      records++;
      const at = line;
      line += linesOf(raw);
      if (!columns?.includes('phone')) throw new MissingPhoneColumn(columns);
      const phone = (record.phone ?? '').trim();
      const reason = record.reason;
      if (phone === '' && (reason ?? '').trim() === '') continue;
      yield { kind: 'row', line: at, phone, reason };
    }
  } catch (error) {
    if (error instanceof MissingPhoneColumn) throw error;
    // Not even a header with a phone column could be read: the file is refused whole.
    if (!columns?.includes('phone')) throw new MissingPhoneColumn(columns);
    if (error instanceof UploadTooLarge || (error as { cause?: unknown })?.cause instanceof UploadTooLarge) {
      yield {
        kind: 'stopped',
        line,
        message: `the file is over ${maxBytes / 1024 / 1024} MiB: it was read up to this line, the rest was not`,
      };
      return;
    }
    const code = (error as { code?: unknown })?.code;
    if (typeof code === 'string' && code.startsWith('CSV_')) {
      yield { kind: 'stopped', line, message: notCsv(error as Error & { code: string }) };
      return;
    }
    throw error;
  } finally {
    // Read no further: the route closes the connection after its answer when the body was not read to its end.
    body.unpipe(counter);
    counter.unpipe(parser);
    parser.destroy();
  }
  if (!columns?.includes('phone')) throw new MissingPhoneColumn(columns);
  if (broken) yield { kind: 'stopped', line, message: broken.message };
}
