import { Type } from '@sinclair/typebox';
import { ref } from '../lib/schema.js';

/** A voice the provider account offers, as an agent's `voice` names it. */
export const ProviderVoiceView = Type.Object(
  {
    provider: Type.String({ description: "Who synthesizes the voice: the agent's `voice.provider`" }),
    voiceId: Type.Union([Type.String(), Type.Null()], {
      description: "The agent's `voice.voiceId`; null: the provider takes any of its voice ids, typed in",
    }),
    name: Type.String(),
    gender: Type.Optional(Type.String()),
    accent: Type.Optional(Type.String()),
    age: Type.Optional(Type.String()),
    previewUrl: Type.Optional(Type.String({ description: 'A sample of the voice, where the provider has one' })),
  },
  { $id: 'ProviderVoice' },
);

export const ProviderVoiceList = Type.Object(
  { data: Type.Array(ref(ProviderVoiceView)) },
  { $id: 'ProviderVoiceList' },
);

export const PROVIDER_VOICE_VIEWS = [ProviderVoiceView, ProviderVoiceList];
