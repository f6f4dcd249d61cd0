const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/**
 * Replaces each `{{name}}` in one pass. Values are inserted as they are and never expanded again,
 * so a caller cannot smuggle a placeholder in through a variable's value. A name `lookup` does
 * not know becomes "" (seed §2.2: optional variables are empty strings, never "undefined").
 */
export function fillTemplate(text: string, lookup: (name: string) => string | undefined): string {
  return text.replace(PLACEHOLDER, (_, name: string) => lookup(name) ?? '');
}

/** The distinct placeholder names a text uses, in order of first use. */
export function placeholdersOf(...texts: string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(PLACEHOLDER)) if (match[1]) names.add(match[1]);
  return [...names];
}
