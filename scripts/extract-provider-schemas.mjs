// Extracts from the providers' published OpenAPI files (test/fixtures/providers) only the request
// schemas an agent is published with, and everything they refer to, into
//   src/providers/vapi/vapi-schemas.json      (the assistant: CreateAssistantDTO = UpdateAssistantDTO)
//   src/providers/retell/retell-schemas.json  (the LLM and the agent: create-retell-llm, create-agent)
// which the server reads, lazily, to check an agent's definition at save time (decision 0036): the
// runtime never reads test/fixtures. Run it again after replacing a file in test/fixtures/providers:
//   node scripts/extract-provider-schemas.mjs
// With --check it writes nothing and fails when a committed file is not what it would write.
//
// What is kept is what validation needs, read as the providers mean it (as test/helpers/openapi.ts
// reads the whole files):
// - annotations (description, title, example, default, deprecated, format, …) are dropped;
// - an empty `enum`, or one written on an array as well as on its items, is dropped;
// - a `pattern` written as a JavaScript literal (`/^…$/u`) is the expression between the slashes;
// - a `type` its own `enum` contradicts (Vapi's `BackoffPlan.type`: `object`, with string values) is
//   the type of those values;
// - `oneOf` is read as `anyOf` (some alternatives overlap); where every object alternative names
//   itself by a one-value `provider` or `type`, the union becomes if/then on that field, so a refusal
//   names the field that is wrong in the alternative that was meant rather than every alternative;
// - Vapi refuses fields its DTOs do not declare ("property x should not exist"): its object schemas
//   that list properties get `additionalProperties: false`. Retell's are left open (our published
//   agent carries `metadata`, which its file does not list).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
const ANNOTATIONS = new Set([
  'description',
  'title',
  'example',
  'examples',
  'default',
  'deprecated',
  'format',
  'externalDocs',
  'xml',
  'readOnly',
  'writeOnly',
  'discriminator',
]);
/** Keywords whose value is one schema, a list of schemas, or a map of name → schema. */
const ONE = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']);
const LIST = new Set(['allOf', 'anyOf', 'oneOf']);
const MAP = new Set(['properties', 'patternProperties', 'definitions']);
const DISCRIMINATORS = ['provider', 'type'];

const isEnumOfStrings = (values) =>
  Array.isArray(values) && values.length > 0 && values.every((value) => typeof value === 'string');

function extract({ file, read, roots, closed }) {
  const text = readFileSync(`${ROOT}/${file}`, 'utf8');
  const doc = read(text);
  const components = doc.components.schemas;
  const named = (ref) => {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    if (!match || !components[match[1]]) throw new Error(`${file}: cannot follow ${ref}`);
    return match[1];
  };
  const resolve = (schema) => {
    let node = schema;
    for (let hops = 0; node && typeof node === 'object' && typeof node.$ref === 'string'; hops++) {
      if (hops > 20) throw new Error(`${file}: $ref loop at ${schema.$ref}`);
      node = components[named(node.$ref)];
    }
    return node;
  };

  /** The one-value discriminator every object alternative declares and requires, if there is one. */
  function discriminatorOf(alternatives) {
    const objects = alternatives.map(resolve).filter((alt) => alt && typeof alt === 'object' && alt.properties);
    if (objects.length < 2) return undefined;
    for (const key of DISCRIMINATORS) {
      const values = objects.map((alt) => alt.properties[key]?.enum);
      const ok = objects.every(
        (alt, i) => Array.isArray(values[i]) && values[i].length > 0 && (alt.required ?? []).includes(key),
      );
      if (!ok) continue;
      const all = values.flat();
      if (new Set(all).size === all.length) return key;
    }
    return undefined;
  }

  function union(alternatives, siblings) {
    const key = discriminatorOf(alternatives);
    if (!key) return { ...siblings, anyOf: alternatives.map(clean) };
    const isObject = (alt) => Boolean(resolve(alt)?.properties);
    const others = alternatives.filter((alt) => !isObject(alt)).map(clean);
    const objects = alternatives.filter(isObject);
    const values = objects.flatMap((alt) => resolve(alt).properties[key].enum);
    const discriminated = {
      type: 'object',
      required: [key],
      properties: { [key]: { type: 'string', enum: values } },
      allOf: objects.map((alt) => ({
        if: { properties: { [key]: { enum: resolve(alt).properties[key].enum } }, required: [key] },
        then: clean(alt),
      })),
    };
    if (others.length === 0) return { ...siblings, ...discriminated };
    return { ...siblings, anyOf: [...others, discriminated] };
  }

  function clean(schema) {
    if (Array.isArray(schema)) return schema.map(clean);
    if (typeof schema !== 'object' || schema === null) return schema;
    const out = {};
    const arrayEnum = schema.type === 'array' && 'items' in schema;
    let alternatives;
    for (const [key, value] of Object.entries(schema)) {
      if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
      if (key === 'enum' && Array.isArray(value) && (value.length === 0 || arrayEnum)) continue;
      if (key === 'pattern' && typeof value === 'string') {
        const literal = /^\/(.*)\/[a-z]*$/s.exec(value);
        out.pattern = literal ? literal[1] : value;
      } else if (key === 'type' && value === 'object' && isEnumOfStrings(schema.enum)) out.type = 'string';
      else if (key === 'oneOf' || key === 'anyOf') alternatives = [...(alternatives ?? []), ...value];
      else if (ONE.has(key)) out[key] = clean(value);
      else if (LIST.has(key)) out[key] = value.map(clean);
      else if (MAP.has(key)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v)]));
      else out[key] = value;
    }
    if (closed && out.properties && !('additionalProperties' in out)) out.additionalProperties = false;
    return alternatives ? union(alternatives, out) : out;
  }

  // The roots, then every component they refer to, transitively.
  const cleanedRoots = Object.fromEntries(Object.entries(roots(doc)).map(([name, schema]) => [name, clean(schema)]));
  const kept = {};
  const pending = [cleanedRoots];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...node);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') {
          const name = named(value);
          if (!(name in kept)) {
            kept[name] = clean(components[name]);
            pending.push(kept[name]);
          }
        } else pending.push(value);
      }
    }
  }
  const shared = shareRepeats(cleanedRoots, kept);
  const sorted = Object.fromEntries(Object.keys(kept).sort().map((name) => [name, kept[name]]));
  return {
    doc,
    out: {
      source: `${file} (sha256 ${createHash('sha256').update(text).digest('hex')}), extracted by scripts/extract-provider-schemas.mjs`,
      roots: cleanedRoots,
      components: { schemas: { ...sorted, ...shared } },
    },
  };
}

/** Calls `visit` on every subschema of `schema` (not the schema itself), in place. */
function eachSubschema(schema, visit) {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    if (ONE.has(key) && typeof value === 'object' && value !== null) schema[key] = visit(value);
    else if (LIST.has(key) && Array.isArray(value)) schema[key] = value.map(visit);
    else if (MAP.has(key) && value && typeof value === 'object')
      for (const name of Object.keys(value)) value[name] = visit(value[name]);
  }
}

/**
 * A subschema written out many times (each Vapi model repeats the same union of 23 tools) is kept
 * once, as `SharedN`, and referred to: the same validation in a fraction of the bytes.
 */
function shareRepeats(roots, kept) {
  const MIN_BYTES = 200;
  const counts = new Map();
  const count = (schema) => {
    if (Array.isArray(schema) || typeof schema !== 'object' || schema === null) return schema;
    const key = JSON.stringify(schema);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    eachSubschema(schema, count);
    return schema;
  };
  for (const schema of [...Object.values(roots), ...Object.values(kept)]) eachSubschema(schema, count);
  const shared = {};
  const names = new Map();
  const share = (schema) => {
    if (Array.isArray(schema) || typeof schema !== 'object' || schema === null) return schema;
    const key = JSON.stringify(schema);
    if (key.length >= MIN_BYTES && (counts.get(key) ?? 0) > 1) {
      let name = names.get(key);
      if (!name) {
        name = `Shared${names.size + 1}`;
        if (name in kept) throw new Error(`a component is already named ${name}`);
        names.set(key, name);
        const copy = structuredClone(schema);
        eachSubschema(copy, share);
        shared[name] = copy;
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    eachSubschema(schema, share);
    return schema;
  };
  for (const schema of [...Object.values(roots), ...Object.values(kept)]) eachSubschema(schema, share);
  return shared;
}

const requestBody = (doc, path, method) => doc.paths[path][method].requestBody.content['application/json'].schema;

/** Vapi has no voice list: the providers its `voice` union documents, with the ids it enumerates. */
function vapiVoices(doc) {
  const components = doc.components.schemas;
  return doc.components.schemas.CreateAssistantDTO.properties.voice.oneOf.flatMap((alt) => {
    const schema = components[alt.$ref.split('/').pop()];
    const voiceId = schema.properties.voiceId;
    // A voice that needs more than a provider and an id (a server, a model) is set through providerSettings.
    if (!voiceId || (schema.required ?? []).some((field) => field !== 'provider' && field !== 'voiceId')) return [];
    const options = voiceId.oneOf ?? voiceId.anyOf ?? [voiceId];
    const ids = [...new Set(options.flatMap((option) => option.enum ?? []))];
    const anyId = options.some((option) => option.type === 'string' && !option.enum?.length);
    return schema.properties.provider.enum.map((provider) => ({ provider, voiceIds: ids, anyVoiceId: anyId }));
  });
}

const vapi = extract({
  file: 'test/fixtures/providers/vapi-openapi.json',
  read: JSON.parse,
  closed: true,
  roots: (doc) => {
    const { CreateAssistantDTO: create, UpdateAssistantDTO: update } = doc.components.schemas;
    // Creating and updating take the same body today; if they ever differ, extract both.
    if (JSON.stringify(create) !== JSON.stringify(update)) throw new Error('CreateAssistantDTO ≠ UpdateAssistantDTO');
    return { assistant: { $ref: '#/components/schemas/CreateAssistantDTO' } };
  },
});
vapi.out.voices = vapiVoices(vapi.doc);
// The transcriber an agent's language is published with, and the languages it takes.
vapi.out.transcriber = {
  provider: 'deepgram',
  languages: vapi.doc.components.schemas.DeepgramTranscriber.properties.language.enum,
};

const retell = extract({
  file: 'test/fixtures/providers/retell-openapi.yaml',
  read: parse,
  closed: false,
  roots: (doc) => {
    const llm = requestBody(doc, '/create-retell-llm', 'post');
    if (JSON.stringify(llm) !== JSON.stringify(requestBody(doc, '/update-retell-llm/{llm_id}', 'patch')))
      throw new Error('create-retell-llm ≠ update-retell-llm');
    return { llm, agent: requestBody(doc, '/create-agent', 'post') };
  },
});

for (const [target, { out }] of [
  ['src/providers/vapi/vapi-schemas.json', vapi],
  ['src/providers/retell/retell-schemas.json', retell],
]) {
  // Written as the repository's formatter writes JSON (biome check covers src/), so that formatting
  // the tree never changes it.
  const text = execFileSync(
    process.execPath,
    [`${ROOT}/node_modules/@biomejs/biome/bin/biome`, 'format', `--stdin-file-path=${target}`],
    { cwd: ROOT, input: JSON.stringify(out), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (check) {
    const current = existsSync(`${ROOT}/${target}`) ? readFileSync(`${ROOT}/${target}`, 'utf8') : '';
    if (current !== text) {
      console.error(`${target} is not what the providers' files give: run node scripts/extract-provider-schemas.mjs`);
      process.exitCode = 1;
    } else console.log(`${target}: up to date`);
  } else {
    writeFileSync(`${ROOT}/${target}`, text);
    console.log(`${target}: ${Object.keys(out.components.schemas).length} schemas, ${text.length} bytes`);
  }
}
