/**
 * Retell's published schemas an agent and its LLM are checked against (`retell-schemas.json`,
 * extracted from its OpenAPI file by scripts/extract-provider-schemas.mjs), read on first use. The
 * type-only import makes the build copy the JSON beside this module; nothing is read at start.
 */

import { type ExtractedSchemas, lazyJson, lazyValidators } from '../published-schemas.js';
import type retellSchemasFile from './retell-schemas.json';

type _File = typeof retellSchemasFile;

export const retellSchemas = lazyJson<ExtractedSchemas>(new URL('./retell-schemas.json', import.meta.url));

/** `llm`: the create-retell-llm body (update takes the same); `agent`: the create-agent body. */
export const retellValidator = lazyValidators(
  retellSchemas,
  'retell',
  new URL('./retell-validators.cjs', import.meta.url),
);
