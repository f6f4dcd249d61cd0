import type { Readable } from 'node:stream';
import { checkCallRequestBody } from '../click-to-call/request-body.js';
import { besideSchema, type FieldProblem, notFound, validationError } from '../errors.js';
import { formatCount } from '../lib/format-count.js';
import { newId } from '../lib/ids.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../lib/json-guard.js';
import { decodeCursor, type Page, toPage } from '../lib/pagination.js';
import type { NewSuppression, SuppressionRow, SuppressionsRepository } from './suppressions.repository.js';
import {
  type CreateSuppressionInput,
  MAX_REASON,
  MAX_REPORTED_ERRORS,
  MAX_SUPPRESSIONS_PER_ORGANIZATION,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_ROWS,
  type SuppressionImport,
  type SuppressionListQuery,
  type SuppressionView,
} from './suppressions.schemas.js';
import { MissingPhoneColumn, readSuppressionCsv } from './suppressions-csv.js';

/** Rows an upload writes per statement. */
const BATCH = 1000;

export function toSuppressionView(row: SuppressionRow): SuppressionView {
  return {
    id: row.id,
    phone: row.phone,
    reason: row.reason,
    source: row.source as SuppressionView['source'],
    callId: row.callId,
    createdAt: row.createdAt.toISOString(),
  };
}

/** What is wrong with a number, by click to call's own check of `phone` (E.164, a number that exists); undefined: nothing. */
export function phoneProblem(phone: unknown): string | undefined {
  const checked = checkCallRequestBody({ phone });
  return checked.ok ? undefined : checked.details.find((detail) => detail.path === '$.phone')?.message;
}

/** A reason as stored: trimmed, null when there is none. */
const reasonOf = (reason: string | null | undefined) => {
  const trimmed = reason?.trim();
  return trimmed ? trimmed : null;
};

const LIST_FULL = `The do-not-call list holds ${formatCount(MAX_SUPPRESSIONS_PER_ORGANIZATION)} numbers, as many as it may: remove some first`;

export interface SuppressionsServiceDeps {
  repository: SuppressionsRepository;
}

/** The organization's do-not-call list (docs/interface.md#do-not-call-list, decision 0047). */
export function createSuppressionsService({ repository }: SuppressionsServiceDeps) {
  return {
    /**
     * Lists one number; `created` false when it was listed already (left as it was). The schema's
     * problems (`schemaProblems`) and the number's are answered together.
     */
    async add(
      organizationId: string,
      body: CreateSuppressionInput,
      schemaProblems: FieldProblem[] = [],
    ): Promise<{ created: boolean; suppression: SuppressionView }> {
      const own: FieldProblem[] = [];
      const problem = typeof body?.phone === 'string' ? phoneProblem(body.phone) : undefined;
      if (problem) own.push({ path: '$.phone', message: problem });
      const problems = besideSchema(schemaProblems, own);
      if (problems.length > 0) throw validationError(problems);
      const existing = await repository.findByPhone(organizationId, body.phone);
      if (existing) return { created: false, suppression: toSuppressionView(existing) };
      if ((await repository.count(organizationId)) >= MAX_SUPPRESSIONS_PER_ORGANIZATION)
        throw validationError([{ path: '$.phone', message: LIST_FULL }], LIST_FULL);
      const inserted = await repository.insert(organizationId, {
        id: newId('dnc'),
        phone: body.phone,
        reason: reasonOf(body.reason),
      });
      if (inserted) return { created: true, suppression: toSuppressionView(inserted) };
      // Listed meanwhile by another request: that one's row is the answer.
      const raced = await repository.findByPhone(organizationId, body.phone);
      if (!raced) throw new Error('the number was neither added nor found');
      return { created: false, suppression: toSuppressionView(raced) };
    },

    /**
     * A CSV upload, read as it arrives and written `BATCH` rows per statement: every valid row is
     * listed (a number listed already is left as it was), every invalid one reported by line and
     * skipped. Refused whole (422, nothing stored) when `contentLength` is over the limit, when the
     * file has no `phone` column, or when the list is full already.
     */
    async importCsv(
      organizationId: string,
      body: Readable,
      contentLength: number | undefined,
    ): Promise<SuppressionImport> {
      if (contentLength !== undefined && contentLength > MAX_UPLOAD_BYTES) {
        throw validationError([
          {
            path: '$',
            message: `The file is over ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB: split it into smaller uploads`,
          },
        ]);
      }
      let room = MAX_SUPPRESSIONS_PER_ORGANIZATION - (await repository.count(organizationId));
      if (room <= 0) throw validationError([{ path: '$', message: LIST_FULL }], LIST_FULL);

      const result: SuppressionImport = { received: 0, added: 0, alreadyListed: 0, errors: [] };
      let omitted = 0;
      const refuse = (line: number, message: string) => {
        if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ line, message });
        else omitted++;
      };
      let batch: (NewSuppression & { line: number })[] = [];
      const flush = async () => {
        const rows = batch;
        batch = [];
        const fits = rows.slice(0, Math.max(0, room));
        const over = rows.slice(fits.length);
        const added = await repository.insertMany(organizationId, fits);
        room -= added.size;
        result.added += added.size;
        result.alreadyListed += fits.length - added.size;
        if (over.length === 0) return;
        // Past the list's size: numbers it holds already are fine; the others are not added.
        const listed = await repository.listedOf(
          organizationId,
          over.map((row) => row.phone),
        );
        for (const row of over) {
          if (listed.has(row.phone)) result.alreadyListed++;
          else refuse(row.line, `not added: ${LIST_FULL.replace('The do-not-call', 'the do-not-call')}`);
        }
      };

      try {
        for await (const item of readSuppressionCsv(body, { maxBytes: MAX_UPLOAD_BYTES })) {
          if (item.kind === 'stopped') {
            refuse(item.line, item.message);
            break;
          }
          if (result.received >= MAX_UPLOAD_ROWS) {
            refuse(
              item.line,
              `the file has more than ${formatCount(MAX_UPLOAD_ROWS)} rows: it was read up to this line, the rest was not`,
            );
            break;
          }
          result.received++;
          const problem =
            item.phone === ''
              ? 'phone is empty'
              : phoneProblem(item.phone) &&
                `phone ${JSON.stringify(item.phone.length > 40 ? `${item.phone.slice(0, 40)}…` : item.phone)} ${phoneProblem(item.phone)}`;
          const reason = reasonOf(item.reason);
          if (problem) refuse(item.line, problem);
          else if (reason !== null && reason.length > MAX_REASON)
            refuse(item.line, `reason is ${formatCount(reason.length)} characters: at most ${MAX_REASON}`);
          else if (reason !== null && !isStorableText(reason)) refuse(item.line, `reason ${UNSTORABLE_TEXT_MESSAGE}`);
          else {
            batch.push({ id: newId('dnc'), phone: item.phone, reason, line: item.line });
            if (batch.length >= BATCH) await flush();
          }
        }
      } catch (error) {
        if (!(error instanceof MissingPhoneColumn)) throw error;
        throw validationError(
          [
            {
              path: '$',
              message: error.header
                ? `The header row has no phone column (its columns: ${error.header.slice(0, 20).join(', ').slice(0, 150) || 'none'}): the first line must name the columns, e.g. phone,reason`
                : 'The file is empty: its first line must name the columns, e.g. phone,reason',
            },
          ],
          'The file has no phone column: nothing was added',
        );
      }
      await flush();
      return omitted > 0 ? { ...result, errorsOmitted: omitted } : result;
    },

    async list(
      organizationId: string,
      query: SuppressionListQuery,
    ): Promise<Page<SuppressionView> & { total: number }> {
      const limit = query.limit ?? 20;
      const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      // A prefix without its `+` is read as one with it: every number is stored in E.164.
      const phonePrefix = query.phone === undefined || query.phone.startsWith('+') ? query.phone : `+${query.phone}`;
      const [rows, total] = await Promise.all([
        repository.list(organizationId, { phonePrefix, beforeId, limit: limit + 1 }),
        repository.count(organizationId, phonePrefix),
      ]);
      return { ...toPage(rows, limit, toSuppressionView), total };
    },

    async remove(organizationId: string, id: string): Promise<void> {
      if (!(await repository.remove(organizationId, id))) throw notFound('Suppression');
    },
  };
}

export type SuppressionsService = ReturnType<typeof createSuppressionsService>;
