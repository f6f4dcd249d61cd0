/**
 * Checking what we would publish against a provider's own published schema, at save time
 * (decision 0036). The schemas are extracted from the providers' OpenAPI files by
 * scripts/extract-provider-schemas.mjs into `vapi/vapi-schemas.json` and `retell/retell-schemas.json`.
 * The build compiles them into `<name>-validators.cjs` beside the JSON in dist/ (decision 0090), which
 * the first check loads; without it (src/ run by tsx: tests, benchmarks) the first check compiles
 * them (Ajv). Never at start.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { jsonPath } from '../agents/agent-definition.js';
import { type FieldProblem, plainMessage } from '../errors.js';

/** The shape of an extracted file: the request bodies (`roots`) and the schemas they refer to. */
export interface ExtractedSchemas {
  source: string;
  roots: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
}

/** Reads a JSON file next to the caller once, on first use. */
export function lazyJson<T>(url: URL): () => T {
  let value: T | undefined;
  return () => {
    value ??= JSON.parse(readFileSync(url, 'utf8')) as T;
    return value;
  };
}

/** An Ajv for a provider's file, its schema registered as `name` (roots at `name#/roots/<root>`). */
function ajvFor(file: ExtractedSchemas, name: string, { source }: { source: boolean }): Ajv.default {
  // Not inlining references and not optimizing the generated code compile Vapi's schema in a
  // quarter of the time; checking one agent stays well under a millisecond.
  const ajv = new Ajv.default({
    strict: false,
    allErrors: true,
    validateFormats: false,
    inlineRefs: false,
    code: { optimize: false, source },
  });
  ajv.addSchema(file as object, name);
  return ajv;
}

/** The validators the build compiled (a module exporting one per root), or undefined without one. */
function loadBuilt(url: URL): Record<string, ValidateFunction> | undefined {
  const file = fileURLToPath(url);
  return existsSync(file) ? (createRequire(import.meta.url)(file) as Record<string, ValidateFunction>) : undefined;
}

/**
 * A validator per root of the file, on first use: from `built` when the build wrote it (dist/,
 * about 60 ms to load Vapi's), else compiled (about half a second for Vapi's).
 */
export function lazyValidators(
  file: () => ExtractedSchemas,
  name: string,
  built: URL,
): (root: string) => ValidateFunction {
  let fromBuild: Record<string, ValidateFunction> | undefined | null = null;
  let ajv: Ajv.default | undefined;
  const compiled = new Map<string, ValidateFunction>();
  return (root) => {
    let validate = compiled.get(root);
    if (!validate) {
      if (fromBuild === null) fromBuild = loadBuilt(built);
      if (fromBuild) validate = fromBuild[root];
      else {
        ajv ??= ajvFor(file(), name, { source: false });
        validate = ajv.getSchema(`${name}#/roots/${root}`);
      }
      if (!validate) throw new Error(`no root ${root} in the ${name} schemas`);
      compiled.set(root, validate);
    }
    return validate;
  };
}

/**
 * The source of a CommonJS module exporting a validator per root of `file`, compiled with the
 * options `lazyValidators` compiles with, so that both check alike (Ajv's standalone code).
 */
export function validatorsSource(file: ExtractedSchemas, name: string): string {
  const ajv = ajvFor(file, name, { source: true });
  const roots = Object.fromEntries(Object.keys(file.roots).map((root) => [root, `${name}#/roots/${root}`]));
  return standaloneCode.default(ajv, roots);
}

/**
 * Run by the build after tsc (decision 0090): for each `<dir>/<provider>/<name>-schemas.json`, writes
 * `<name>-validators.cjs` beside it; returns the files written.
 */
export function writeBuiltValidators(dir: string): string[] {
  const written: string[] = [];
  for (const provider of readdirSync(dir, { withFileTypes: true })) {
    if (!provider.isDirectory()) continue;
    for (const entry of readdirSync(path.join(dir, provider.name))) {
      const name = /^(.+)-schemas\.json$/.exec(entry)?.[1];
      if (!name) continue;
      const file = JSON.parse(readFileSync(path.join(dir, provider.name, entry), 'utf8')) as ExtractedSchemas;
      const target = path.join(dir, provider.name, `${name}-validators.cjs`);
      writeFileSync(target, validatorsSource(file, name));
      written.push(target);
    }
  }
  return written;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `settings` merged into `base`: objects field by field, anything else (arrays included) replaced.
 * Pure: neither argument is changed. Keys are defined as own properties, so no key reaches a prototype.
 */
export function deepMerge<T>(base: T, settings: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(settings)) return (settings === undefined ? base : settings) as T;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(settings)) {
    Object.defineProperty(merged, key, {
      value: Object.hasOwn(base, key) ? deepMerge(base[key], value) : value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return merged as T;
}

/** A field of the published body that providerSettings may not set, and what sets it instead. */
export interface ReservedField {
  path: string[];
  /** Our field that sets it (`$.voice`), or null when it is Switchboard's own (our webhook, our ids). */
  setBy: string | null;
}

/** Each reserved field `settings` would set or replace (a value in place of an object on its way). */
export function reservedProblems(
  settings: Record<string, unknown> | null | undefined,
  reserved: readonly ReservedField[],
  root: string,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const field of reserved) {
    let node: unknown = settings;
    for (let i = 0; i < field.path.length; i++) {
      if (!isPlainObject(node) || !Object.hasOwn(node, field.path[i] as string)) break;
      node = node[field.path[i] as string];
      const last = i === field.path.length - 1;
      if (last || !isPlainObject(node)) {
        const path = jsonPath(field.path.slice(0, i + 1), root);
        if (problems.some((p) => p.path === path)) break;
        problems.push({
          path,
          message: field.setBy
            ? `${last ? 'is' : 'replaces what is'} set by ${field.setBy}: change it there`
            : `${last ? 'is' : 'replaces what is'} set by Switchboard (its webhook, its ids): it cannot be changed`,
        });
        break;
      }
    }
  }
  return problems;
}

/** One body to check: what we would publish, the part of providerSettings merged into it, and our names. */
export interface BodyCheck {
  /** The provider's name for messages (`Vapi`). */
  provider: string;
  /** The body's name at the provider, prefixed to its fields in messages (`llm` → `llm.model`); none for one body. */
  label?: string;
  validate: ValidateFunction;
  body: unknown;
  /** What providerSettings merged into this body, and where it sits in our request. */
  settings: unknown;
  settingsRoot: string;
  /** Our field for a field of the body (its path as parts), when there is one. */
  ours: (parts: string[]) => string | undefined;
}

const MAX_LISTED = 12;

function messageOf(error: ErrorObject, provider: string): string {
  switch (error.keyword) {
    case 'enum': {
      const values = (error.params as { allowedValues: unknown[] }).allowedValues;
      const listed = values.slice(0, MAX_LISTED).map((value) => JSON.stringify(value));
      return `must be one of ${listed.join(', ')}${values.length > MAX_LISTED ? `, … (${values.length} in all)` : ''}`;
    }
    case 'const':
      return `must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`;
    case 'required':
      return `needs "${String((error.params as { missingProperty: string }).missingProperty)}"`;
    case 'additionalProperties':
      return `is not a field ${provider} accepts here`;
    default:
      // The validator's own words (`must be <= 1`) said plainly, as for our own schemas.
      return plainMessage(error);
  }
}

const partsOf = (error: ErrorObject): string[] => {
  const parts =
    error.instancePath === ''
      ? []
      : error.instancePath
          .split('/')
          .slice(1)
          .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'additionalProperties') parts.push(String(error.params.additionalProperty));
  return parts;
};

/**
 * The errors that say something: not "must match then" or "must match a schema in anyOf" when a
 * deeper error says which field, and not a "must be string" of another alternative when a deeper
 * error shows which alternative was meant.
 */
function telling(errors: readonly ErrorObject[]): ErrorObject[] {
  const deeper = (error: ErrorObject, than: ErrorObject) =>
    error !== than && error.instancePath.startsWith(`${than.instancePath}/`);
  return errors.filter((error) => {
    if (error.keyword === 'if') return false;
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf')
      return !errors.some(
        (other) =>
          other.keyword !== 'anyOf' &&
          other.keyword !== 'oneOf' &&
          other.keyword !== 'if' &&
          (other.instancePath === error.instancePath || deeper(other, error)),
      );
    if (error.keyword === 'type') return !errors.some((other) => deeper(other, error) && other.keyword !== 'if');
    return true;
  });
}

/** Whether providerSettings supplied the value at these parts of the body. */
function suppliedBySettings(settings: unknown, parts: string[]): boolean {
  if (parts.length === 0) return false;
  let node = settings;
  for (const part of parts) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return true;
}

/** What the provider's schema refuses in the body, each named by our field where there is one. */
export function bodyProblems(check: BodyCheck): FieldProblem[] {
  if (check.validate(check.body)) return [];
  const byPath = new Map<string, string[]>();
  for (const error of telling(check.validate.errors ?? [])) {
    const parts = partsOf(error);
    const field = [...(check.label ? [check.label] : []), ...parts].join('.') || 'the body';
    const said = messageOf(error, check.provider);
    const ours = suppliedBySettings(check.settings, parts) ? jsonPath(parts, check.settingsRoot) : check.ours(parts);
    const path = ours ?? '$';
    const message = ours ? `${said} (${check.provider}: ${field})` : `${check.provider} refuses ${field}: ${said}`;
    const messages = byPath.get(path) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byPath.set(path, messages);
  }
  return [...byPath].map(([path, messages]) => ({ path, message: messages.join('; ') }));
}
