import secureJsonParse from 'secure-json-parse';
import { validationError } from '../errors.js';

/**
 * A request's JSON body as the API reads it, so that each refusal says why: not JSON at all, or a
 * key that could pollute prototypes (`__proto__`, `constructor.prototype`), each a 422
 * `api:validation` at `$`. No body at all (nothing but whitespace) is none, whatever the content type
 * says: routes that need one say so by their schema ("must be object"), and actions such as
 * rotate-secret need none. A leading byte-order mark is read past.
 */
export function readRequestJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return secureJsonParse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const forbidden = error instanceof SyntaxError && /prototype/i.test(error.message);
    throw validationError([
      {
        path: '$',
        message: forbidden
          ? 'The body contains a forbidden key (__proto__ or constructor.prototype)'
          : `The body is not valid JSON: ${(error as Error).message}`,
      },
    ]);
  }
}

/**
 * The texts `readRequestJson` may read otherwise than `JSON.parse`: one starting with a byte-order
 * mark, or holding a key it refuses, named in plain letters (`__proto__`, `constructor`) or with a
 * letter escaped (`\u00..`). A text that matches none reads the same either way, and may be parsed
 * by `JSON.parse` anywhere, a thread included (decision 0121).
 */
export const MAY_READ_OTHERWISE_THAN_JSON_PARSE = /^\uFEFF|__proto__|constructor|\\u00/;
