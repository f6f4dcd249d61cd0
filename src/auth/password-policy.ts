import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** The shortest password accepted (decision 0030): NIST SP 800-63B asks for at least 8; we ask 10. */
export const PASSWORD_MIN_LENGTH = 10;

/**
 * zxcvbn-ts's list of the most common passwords (49,233, lowercase, from leaked password sets),
 * read from the plain JSON the package ships beside its compressed module: importing the module
 * decompresses the whole list and keeps it for the life of the process (about 11 MB of resident
 * memory), where the entries a password of 10+ characters can equal are 1,557. Read at the first
 * password it checks, not at start: ~10 ms and ~1.3 MB of resident memory, once (decision 0030).
 */
let commonPasswords: Promise<ReadonlySet<string>> | undefined;

function loadCommonPasswords(): Promise<ReadonlySet<string>> {
  commonPasswords ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@zxcvbn-ts/language-common/src/passwords.json');
    const text = await readFile(file, 'utf8');
    // A JSON array of strings, scanned for its long strings rather than parsed: JSON.parse would
    // make all 49,233 of them to keep 1,557, and costs ~7 MB of resident memory that stays.
    // Each match is a slice of `text`, and V8 keeps a slice's whole parent alive: every entry is
    // made a string of its own (JSON.parse of the one entry), or the Set would hold all 475 KB.
    const entries = new Set<string>();
    const longStrings = new RegExp(String.raw`"((?:[^"\\]|\\.){${PASSWORD_MIN_LENGTH},})"`, 'g');
    for (const [, raw = ''] of text.matchAll(longStrings)) {
      const entry = JSON.parse(`"${raw}"`) as string;
      if (entry.length >= PASSWORD_MIN_LENGTH) entries.add(entry);
    }
    return entries;
  })();
  return commonPasswords;
}

/** Why a password may not be used (said at its field), or undefined when it may. */
export async function passwordProblem(password: string): Promise<string | undefined> {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if ((await loadCommonPasswords()).has(password.toLowerCase())) {
    return 'is one of the most common passwords, which are tried first: choose another';
  }
  return undefined;
}
