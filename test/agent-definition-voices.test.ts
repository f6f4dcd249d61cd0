import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import Retell from 'retell-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRetellVoices } from '../src/providers/retell/retell-voices.js';
import { listVapiVoices } from '../src/providers/vapi/vapi-voices.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { publishedSchema } from './helpers/openapi.js';

let retell: FakeRetell;
beforeAll(async () => {
  retell = await startFakeRetell();
});
afterAll(() => retell?.close());

describe('listing voices', () => {
  it("Retell: the account's voices from GET /list-voices, as an agent's voice names them", async () => {
    // The fake answers in Retell's published shape.
    const validate = publishedSchema('retell', 'VoiceResponse');
    for (const voice of retell.voices) expect(validate(voice), JSON.stringify(validate.errors)).toBe(true);

    const voices = await listRetellVoices(new Retell({ apiKey: retell.apiKey, baseURL: retell.url }));
    expect(voices).toEqual([
      {
        provider: 'elevenlabs',
        voiceId: '11labs-Adrian',
        name: 'Adrian',
        gender: 'male',
        accent: 'American',
        age: 'Young',
        previewUrl: 'https://retell-utils-public.s3.us-west-2.amazonaws.com/adrian.mp3',
      },
      { provider: 'openai', voiceId: 'openai-Alloy', name: 'Alloy', gender: 'female' },
    ]);
    expect(retell.violations).toEqual([]);
  });

  it('Retell: a refusal of the account is an error, not an empty list', async () => {
    await expect(
      listRetellVoices(new Retell({ apiKey: 'wrong', baseURL: retell.url, maxRetries: 0 })),
    ).rejects.toThrow();
    retell.violations.length = 0;
  });

  it('Vapi: the voice providers its published schema documents, each enumerated id, and the providers that take any id', async () => {
    const voices = await listVapiVoices();
    const providers = new Set(voices.map((voice) => voice.provider));
    // Every provider of Vapi's voice union whose voice is a provider and an id.
    const spec = JSON.parse(readFileSync(new URL('./fixtures/providers/vapi-openapi.json', import.meta.url), 'utf8'));
    const documented = (spec.components.schemas.CreateAssistantDTO.properties.voice.oneOf as { $ref: string }[])
      .map((alt) => spec.components.schemas[alt.$ref.split('/').pop() as string])
      .filter(
        (schema) =>
          schema.properties.voiceId && schema.required.every((f: string) => f === 'provider' || f === 'voiceId'),
      )
      .flatMap((schema) => schema.properties.provider.enum as string[]);
    expect([...providers].sort()).toEqual([...new Set(documented)].sort());
    expect(voices).toContainEqual({ provider: '11labs', voiceId: 'burt', name: 'burt' });
    expect(voices).toContainEqual({ provider: 'openai', voiceId: 'alloy', name: 'alloy' });
    // Cartesia's ids are not enumerated: one entry says any of its ids is taken.
    expect(voices.filter((voice) => voice.provider === 'cartesia')).toEqual([
      { provider: 'cartesia', voiceId: null, name: 'Another cartesia voice (its id)' },
    ]);
    // Deepgram takes only the ids it lists.
    expect(voices.filter((voice) => voice.provider === 'deepgram').every((voice) => voice.voiceId !== null)).toBe(true);
    // Each one, published as an agent's voice, is one Vapi's schema takes.
    const assistant = publishedSchema('vapi', 'CreateAssistantDTO');
    for (const voice of voices) {
      const body = { voice: { provider: voice.provider, voiceId: voice.voiceId ?? 'a-voice-id' } };
      expect(assistant(body), `${JSON.stringify(body)}: ${JSON.stringify(assistant.errors)}`).toBe(true);
    }
  });
});

describe('the extracted provider schemas', () => {
  it("are what scripts/extract-provider-schemas.mjs makes of the providers' published files", {
    timeout: 90_000,
  }, () => {
    const output = execFileSync(process.execPath, ['scripts/extract-provider-schemas.mjs', '--check'], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(output).toContain('vapi-schemas.json: up to date');
    expect(output).toContain('retell-schemas.json: up to date');
  });
});
