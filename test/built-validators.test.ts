import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { type ExtractedSchemas, lazyValidators } from '../src/providers/published-schemas.js';
import { retellSchemas } from '../src/providers/retell/retell-schemas.js';
import { vapiSchemas } from '../src/providers/vapi/vapi-schemas.js';

// The build compiles the providers' published schemas into validators beside them in dist/, so a
// process's first agent save loads them instead of compiling them (decision 0090).

const DIST = fileURLToPath(new URL('../dist/providers/', import.meta.url));
const requireBuilt = createRequire(import.meta.url);
const built = (file: string) => requireBuilt(path.join(DIST, file)) as Record<string, ValidateFunction>;
/** Compiled at first use, as src/ run by tsx does (no built module beside it). */
const compiledOf = (file: () => ExtractedSchemas, name: string) =>
  lazyValidators(file, name, new URL('./no-such-validators.cjs', import.meta.url));

const PROVIDERS = [
  {
    name: 'vapi',
    file: vapiSchemas,
    module: 'vapi/vapi-validators.cjs',
    roots: { assistant: 'vapi/vapi-schemas.js' },
    bodies: [
      { name: 'Sam', firstMessage: 'Hi {{name}}' },
      { name: 1 },
      { transcriber: { provider: 'no-such-provider' } },
      { voice: { provider: 'vapi', voiceId: 5 } },
      { model: { provider: 'openai', model: 'gpt-4o', messages: [{ role: 'bogus', content: 1 }] } },
      { firstMessageMode: 'never', maxDurationSeconds: 'long', metadata: [] },
      { a: { b: { c: { d: [1, [2, [3]]] } } } },
      [],
      null,
      'assistant',
    ],
  },
  {
    name: 'retell',
    file: retellSchemas,
    module: 'retell/retell-validators.cjs',
    roots: { llm: 'retell/retell-schemas.js', agent: 'retell/retell-schemas.js' },
    bodies: [
      {},
      { response_engine: { type: 'retell-llm', llm_id: 'llm_1' }, voice_id: '11labs-Adrian' },
      { voice_id: 1, language: 'xx-XX' },
      { general_prompt: ['not text'], general_tools: [{ type: 'nope' }] },
      { begin_message: null, model: 42 },
      [],
      null,
    ],
  },
] as const;

describe('the providers’ validators, built', () => {
  it('are what the built server checks with', async () => {
    for (const provider of PROVIDERS) {
      for (const [root, module] of Object.entries(provider.roots)) {
        const schemas = await import(pathToFileURL(path.join(DIST, module)).href);
        const validator = schemas[`${provider.name}Validator`] as (root: string) => ValidateFunction;
        expect(validator(root), `${provider.name} ${root}`).toBe(built(provider.module)[root]);
      }
    }
  });

  it('check every body as the validators compiled at first use do, errors included', () => {
    for (const provider of PROVIDERS) {
      const compiled = compiledOf(provider.file, provider.name);
      const outcomes = new Set<boolean>();
      for (const root of Object.keys(provider.roots)) {
        const fromBuild = built(provider.module)[root];
        expect(fromBuild, `${provider.name} ${root}`).toBeTypeOf('function');
        for (const body of provider.bodies) {
          const validate = compiled(root);
          expect(fromBuild?.(body), `${provider.name} ${root} ${JSON.stringify(body)}`).toBe(validate(body));
          expect(fromBuild?.errors ?? null).toEqual(validate.errors ?? null);
          outcomes.add(validate(body));
        }
      }
      // Bodies both taken and refused: the errors compared above are not all empty.
      expect([...outcomes].sort(), provider.name).toEqual([false, true]);
    }
  });
});
