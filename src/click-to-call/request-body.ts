import type { FieldProblem } from '../errors.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../lib/json-guard.js';
import { isValidPhone } from '../lib/phone-numbers.js';

export const MAX_BODY_BYTES = 64 * 1024;
const MAX_VARIABLE_NAME = 64;
/**
 * Characters (UTF-16 units, as JavaScript counts them) a variable's value may have: a name, an
 * address or a note, never a document. Longer values were the fuel of one call filling gigabytes
 * (docs/decisions/0027-bounded-call-records.md); a tool variable's default has the same limit.
 */
export const MAX_VARIABLE_VALUE = 4096;
const RESERVED_PREFIXES = ['switchboard', 'system'];
const E164 = /^\+[1-9]\d{1,14}$/;

export type ParsedBody =
  | { ok: true; phone: string; variables: Record<string, string> }
  | { ok: false; details: FieldProblem[] };

const variablePath = (name: string) =>
  /^[A-Za-z_$][\w$]*$/.test(name) ? `$.variables.${name}` : `$.variables[${JSON.stringify(name)}]`;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a click-to-call body: `{"phone": "+E.164", "variables": {"name": "value"}}` (docs/interface.md#click-to-call, the body check). */
export function parseClickToCallBody(raw: Buffer | undefined): ParsedBody {
  if (!raw || raw.length === 0) {
    return {
      ok: false,
      details: [{ path: '$', message: 'The body is empty; send {"phone": "+14155550123", "variables": {}}' }],
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(raw));
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : 'the body is not UTF-8';
    return { ok: false, details: [{ path: '$', message: `The body is not valid JSON: ${reason}` }] };
  }
  return checkCallRequestBody(value);
}

/**
 * The body check (docs/interface.md#click-to-call, step 11) of a body already parsed: click to call's
 * once its bytes are read as JSON, and `POST /v1/calls`'s `phone` and `variables`.
 */
export function checkCallRequestBody(value: unknown): ParsedBody {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, details: [{ path: '$', message: 'The body must be a JSON object' }] };
  }
  const body = value as Record<string, unknown>;
  const details: FieldProblem[] = [];

  const phone = body.phone;
  if (phone === undefined) details.push({ path: '$.phone', message: 'is required' });
  else if (typeof phone !== 'string') details.push({ path: '$.phone', message: 'must be a string' });
  else if (!E164.test(phone) || !isValidPhone(phone)) {
    details.push({ path: '$.phone', message: 'must be a valid phone number in E.164 format, e.g. +14155550123' });
  }

  const variables: [string, string][] = [];
  const raw_variables = body.variables;
  if (raw_variables !== undefined) {
    if (raw_variables === null || typeof raw_variables !== 'object' || Array.isArray(raw_variables)) {
      details.push({ path: '$.variables', message: 'must be an object whose values are strings' });
    } else {
      for (const [name, v] of Object.entries(raw_variables)) {
        if (name.length === 0) details.push({ path: variablePath(name), message: 'variable names must not be empty' });
        else if (name.length > MAX_VARIABLE_NAME) {
          details.push({
            path: variablePath(name),
            message: `variable names are at most ${MAX_VARIABLE_NAME} characters`,
          });
        } else if (RESERVED_PREFIXES.some((prefix) => name.toLowerCase().startsWith(prefix))) {
          details.push({
            path: variablePath(name),
            message: 'names starting with "switchboard" or "system" are reserved',
          });
        } else if (typeof v !== 'string') {
          details.push({ path: variablePath(name), message: 'must be a string (send optional variables as "")' });
        } else if (v.length > MAX_VARIABLE_VALUE) {
          details.push({ path: variablePath(name), message: `values are at most ${MAX_VARIABLE_VALUE} characters` });
        } else if (!isStorableText(name) || !isStorableText(v)) {
          // The call's row could not be written (a 500), and with it every call accepted in the same batch.
          details.push({ path: variablePath(name), message: `names and values ${UNSTORABLE_TEXT_MESSAGE}` });
        } else variables.push([name, v]);
      }
    }
  }
  if (details.length > 0) return { ok: false, details };
  // fromEntries defines own properties, so a "__proto__" name is an ordinary key, not a prototype.
  return { ok: true, phone: phone as string, variables: Object.fromEntries(variables) };
}
