/**
 * The voices an agent on Vapi can choose: Vapi has no endpoint that lists them, so these are the
 * voice providers its published `voice` schema documents, one entry per voice id it enumerates, and
 * for a provider that takes other ids too, one entry with `voiceId: null` (typed in). Providers
 * whose voice needs more than an id (a server, a model) are set through `providerSettings.voice`.
 */
import type { VoiceChoice } from '../../agents/agent-definition.js';
import { vapiSchemas } from './vapi-schemas.js';

export async function listVapiVoices(): Promise<VoiceChoice[]> {
  return vapiSchemas().voices.flatMap(({ provider, voiceIds, anyVoiceId }) => [
    ...voiceIds.map((voiceId) => ({ provider, voiceId, name: voiceId })),
    ...(anyVoiceId ? [{ provider, voiceId: null, name: `Another ${provider} voice (its id)` }] : []),
  ]);
}
