import { Type } from '@sinclair/typebox';
import { ref } from '../lib/schema.js';

/** A voice the provider account offers, as an agent's `voice` names it. */
export const ProviderVoiceView = Type.Object(
  {
    provider: Type.String({ description: "Who synthesizes the voice: the agent's `voice.provider`" }),
    voiceId: Type.String({ description: "The agent's `voice.voiceId`" }),
    name: Type.String(),
  },
  { $id: 'ProviderVoice', additionalProperties: true },
);

export const ProviderVoiceList = Type.Object(
  { data: Type.Array(ref(ProviderVoiceView)) },
  { $id: 'ProviderVoiceList' },
);

export const PROVIDER_VOICE_VIEWS = [ProviderVoiceView, ProviderVoiceList];
