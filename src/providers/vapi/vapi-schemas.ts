/**
 * Vapi's published schemas an assistant is checked against (`vapi-schemas.json`, extracted from its
 * OpenAPI file by scripts/extract-provider-schemas.mjs), read on first use. The type-only import
 * makes the build copy the JSON beside this module; nothing is read at start.
 */

import { type ExtractedSchemas, lazyJson, lazyValidators } from '../published-schemas.js';
import type vapiSchemasFile from './vapi-schemas.json';

export interface VapiSchemas extends ExtractedSchemas {
  /** The voice providers Vapi documents, with the voice ids it enumerates and whether it takes others. */
  voices: { provider: string; voiceIds: string[]; anyVoiceId: boolean }[];
  /** The transcriber an agent's language is published with, and the languages it takes. */
  transcriber: { provider: string; languages: string[] };
}

// Only the file's name is taken from the import above: its contents are typed by `VapiSchemas`.
type _File = typeof vapiSchemasFile;

export const vapiSchemas = lazyJson<VapiSchemas>(new URL('./vapi-schemas.json', import.meta.url));

/** `assistant`: CreateAssistantDTO (UpdateAssistantDTO is the same). */
export const vapiValidator = lazyValidators(vapiSchemas, 'vapi', new URL('./vapi-validators.cjs', import.meta.url));
