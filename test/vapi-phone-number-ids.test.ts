import type { VapiClient } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import type { OpenedProviderCredential } from '../src/provider-credentials/provider-credentials.service.js';
import { createVapiProvider } from '../src/providers/vapi/vapi-provider.js';
import type { StartCallRequest } from '../src/providers/voice-provider.js';

// A Vapi call needs the id of the agent's `fromNumber` in the account, read from Vapi's list of
// numbers (GET /phone-number). Decision 0093: the list is read once per account, the first call for a
// number waits for it, and past the TTL a known number is used at once while the list is read again
// in the background, so a quiet account's lead does not wait for two requests to Vapi.

const FROM = '+14155550100';
const TTL = 60_000;

/** Vapi's list of numbers as the SDK returns it, each read held until `release` when `hold` is set. */
function standInVapi() {
  const state = {
    numbers: [{ id: 'pn_1', number: FROM }] as { id: string; number: string }[],
    reads: 0,
    hold: false,
    held: [] as (() => void)[],
    calls: [] as { apiKey: string; phoneNumberId: unknown }[],
  };
  const client = (credential: OpenedProviderCredential) =>
    ({
      phoneNumbers: {
        list: async () => {
          state.reads++;
          const answer = state.numbers.map((entry) => ({ ...entry, apiKey: credential.apiKey }));
          if (state.hold) await new Promise<void>((resolve) => state.held.push(resolve));
          return answer;
        },
      },
    }) as unknown as VapiClient;
  const release = () => {
    for (const resolve of state.held.splice(0)) resolve();
  };
  return { state, client, release };
}

function setUp() {
  const vapi = standInVapi();
  let clock = 1_000_000;
  const credentials = new Map<string, OpenedProviderCredential>([
    [
      'cred_1',
      {
        id: 'cred_1',
        provider: 'vapi',
        apiKey: 'key-a',
        webhookSecret: null,
        previousWebhookSecret: null,
        baseUrl: null,
      },
    ],
  ]);
  const provider = createVapiProvider({
    credentialOf: async (_organizationId, id) => credentials.get(id),
    vapiClient: async (credential) => vapi.client(credential),
    createCall: async (credential, body) => {
      vapi.state.calls.push({ apiKey: credential.apiKey, phoneNumberId: body.phoneNumberId });
      return { id: `vapi-call-${vapi.state.calls.length}` };
    },
    phoneNumbersTtlMs: TTL,
    now: () => clock,
  });
  const call = (fromNumber = FROM) => {
    const request: StartCallRequest = {
      callId: 'call_1',
      agent: {
        id: 'agt_1',
        organizationId: 'org_1',
        name: 'Agent',
        prompt: '',
        firstMessage: '',
        fromNumber,
        providerCredentialId: 'cred_1',
        providerAgentId: 'asst_1',
        simulator: null,
      },
      to: '+14155550123',
      variables: {},
    };
    return provider.startCall(request);
  };
  const advance = (ms: number) => {
    clock += ms;
  };
  return { vapi, credentials, call, advance };
}

describe('the ids of Vapi phone numbers (decision 0093)', () => {
  it('reads the list once for every call within the TTL, and once for calls that ask at the same time', async () => {
    const { vapi, call } = setUp();
    vapi.state.hold = true;
    const first = Array.from({ length: 10 }, () => call());
    await new Promise((resolve) => setImmediate(resolve));
    vapi.release();
    for (const result of await Promise.all(first)) expect(result).toMatchObject({ ok: true });
    expect(await call()).toMatchObject({ ok: true });
    expect(vapi.state.reads).toBe(1);
    expect(vapi.state.calls.map((c) => c.phoneNumberId)).toEqual(Array(11).fill('pn_1'));
  });

  it('past the TTL, uses the known id at once and reads the list again behind the call', async () => {
    const { vapi, call, advance } = setUp();
    expect(await call()).toMatchObject({ ok: true });
    advance(TTL + 1);
    // The number moved to another id at Vapi; the read of the new list is held.
    vapi.state.numbers = [{ id: 'pn_2', number: FROM }];
    vapi.state.hold = true;
    // Answered while the read is still held: the call did not wait for it.
    expect(await call()).toMatchObject({ ok: true });
    expect(vapi.state.reads).toBe(2);
    expect(vapi.state.held).toHaveLength(1);
    // A call meanwhile does not start a second read.
    expect(await call()).toMatchObject({ ok: true });
    expect(vapi.state.reads).toBe(2);
    vapi.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await call()).toMatchObject({ ok: true });
    expect(vapi.state.calls.map((c) => c.phoneNumberId)).toEqual(['pn_1', 'pn_1', 'pn_1', 'pn_2']);
    expect(vapi.state.reads).toBe(2);
  });

  it('waits for a read when the number is not known, and refuses a number the account does not have', async () => {
    const { vapi, call } = setUp();
    expect(await call()).toMatchObject({ ok: true });
    vapi.state.numbers.push({ id: 'pn_9', number: '+14155550199' });
    // Not in the list read a moment ago: read again, and found.
    expect(await call('+14155550199')).toMatchObject({ ok: true });
    expect(vapi.state.calls.at(-1)?.phoneNumberId).toBe('pn_9');
    expect(await call('+14155550177')).toEqual({
      ok: false,
      message: 'The Vapi account has no phone number +14155550177',
    });
    expect(vapi.state.reads).toBe(3);
  });

  it('reads the list anew when the credential is given another key', async () => {
    const { vapi, credentials, call } = setUp();
    expect(await call()).toMatchObject({ ok: true });
    credentials.set('cred_1', {
      id: 'cred_1',
      provider: 'vapi',
      apiKey: 'key-b',
      webhookSecret: null,
      previousWebhookSecret: null,
      baseUrl: null,
    });
    vapi.state.numbers = [{ id: 'pn_b', number: FROM }];
    expect(await call()).toMatchObject({ ok: true });
    expect(vapi.state.reads).toBe(2);
    expect(vapi.state.calls.at(-1)).toEqual({ apiKey: 'key-b', phoneNumberId: 'pn_b' });
  });
});
