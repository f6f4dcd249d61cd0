/** The voices a Retell account offers (`GET /list-voices`), for the agent's voice picker. */
import type Retell from 'retell-sdk';
import type { VoiceChoice } from '../../agents/agent-definition.js';

export async function listRetellVoices(client: Retell): Promise<VoiceChoice[]> {
  const voices = await client.voice.list();
  return voices.map((voice) => ({
    provider: voice.provider,
    voiceId: voice.voice_id,
    name: voice.voice_name,
    gender: voice.gender,
    ...(voice.accent ? { accent: voice.accent } : {}),
    ...(voice.age ? { age: voice.age } : {}),
    ...(voice.preview_audio_url ? { previewUrl: voice.preview_audio_url } : {}),
  }));
}
