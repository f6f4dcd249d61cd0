import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import Retell from 'retell-sdk';
import { describe, expect, it } from 'vitest';
import { projectJson } from '../src/lib/json-bodies.js';
import {
  RETELL_BODY_READ,
  retellDisposition,
  retellEndedEvent,
  retellStartedEvent,
  switchboardCallIdOf as retellSwitchboardCallIdOf,
} from '../src/providers/retell/retell-mapper.js';
import { verifyRetellSignature } from '../src/providers/retell/retell-signature.js';
import {
  switchboardCallIdOf,
  VAPI_BODY_READ,
  vapiCallIdOf,
  vapiDisposition,
  vapiEndedEvent,
  vapiRecordingUrl,
  vapiStatusEvent,
  vapiToolCalls,
  vapiToolResults,
} from '../src/providers/vapi/vapi-mapper.js';
import { vapiIncomingCall } from '../src/providers/vapi/vapi-webhook.js';
import { publishedEnum, publishedSchema } from './helpers/openapi.js';
import { retellCallAnalyzed } from './helpers/retell-report.js';

const OUTCOMES = ['SOLD', 'INTERESTED', 'NOT_INTERESTED', 'COMPLETED'];

describe('Vapi end reasons', () => {
  it('maps the end reasons Vapi documents as examples, as decision 0017 says', () => {
    expect(
      Object.fromEntries(
        [
          'customer-ended-call',
          'assistant-ended-call',
          'customer-did-not-answer',
          'customer-busy',
          'voicemail',
          'silence-timed-out',
          'exceeded-max-duration',
          'twilio-failed-to-connect-call',
          'pipeline-error-openai-llm-failed',
        ].map((reason) => [reason, vapiDisposition(reason)]),
      ),
    ).toEqual({
      'customer-ended-call': 'answered',
      'assistant-ended-call': 'answered',
      'customer-did-not-answer': 'NO_ANSWER',
      'customer-busy': 'BUSY',
      voicemail: 'VOICEMAIL',
      'silence-timed-out': 'answered',
      'exceeded-max-duration': 'answered',
      'twilio-failed-to-connect-call': 'FAILED',
      'pipeline-error-openai-llm-failed': 'FAILED',
    });
  });

  it('gives every end reason of the published OpenAPI file a disposition: errors and calls never connected are FAILED', () => {
    const reasons = publishedEnum('vapi', ['ServerMessageEndOfCallReport', 'properties', 'endedReason']);
    expect(reasons.length).toBeGreaterThan(600);
    for (const reason of reasons) {
      const disposition = vapiDisposition(reason);
      if (/error|fail/.test(reason)) expect(disposition, reason).toBe('FAILED');
      expect(['answered', 'NO_ANSWER', 'BUSY', 'VOICEMAIL', 'FAILED'], reason).toContain(disposition);
    }
    const answered = reasons.filter((reason) => vapiDisposition(reason) === 'answered');
    expect(answered).toEqual(
      expect.arrayContaining([
        'customer-ended-call',
        'assistant-said-end-call-phrase',
        'call.in-progress.twilio-completed-call',
      ]),
    );
    for (const reason of ['assistant-not-found', 'manually-canceled', 'vonage-rejected', 'call-deleted']) {
      expect(vapiDisposition(reason), reason).toBe('FAILED');
    }
  });
});

/** An end-of-call report as Vapi sends it (checked against its published schema below). */
const report = {
  type: 'end-of-call-report',
  endedReason: 'customer-ended-call',
  startedAt: '2026-11-21T10:00:00.000Z',
  endedAt: '2026-11-21T10:00:42.400Z',
  call: {
    id: 'vapi-call-1',
    orgId: 'org-1',
    createdAt: '2026-11-21T09:59:58.000Z',
    updatedAt: '2026-11-21T10:00:42.400Z',
    assistantOverrides: { metadata: { switchboardCallId: 'call_abc' } },
  },
  artifact: {
    messages: [
      { role: 'system', message: 'You are Sam.', time: 1795341600000, secondsFromStart: 0 },
      { role: 'bot', message: 'Hi Ada!', time: 1795341601200, endTime: 1795341602000, secondsFromStart: 1.2 },
      { role: 'user', message: 'Sign me up', time: 1795341604000, endTime: 1795341605000, secondsFromStart: 4 },
      {
        role: 'tool_call_result',
        toolCallId: 't1',
        name: 'create_lead',
        result: '{"id":"L-1"}',
        time: 1795341606000,
        secondsFromStart: 6,
      },
    ],
    recording: { mono: { combinedUrl: 'https://storage.vapi.ai/vapi-call-1-mono.wav' } },
  },
  analysis: { structuredData: { status: 'SOLD', email: 'ada@example.com' }, summary: 'Sold.' },
};

describe('Vapi reports', () => {
  it('the fixtures keep the published shapes', () => {
    const validate = publishedSchema('vapi', 'ServerMessageEndOfCallReport');
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    const status = { type: 'status-update', status: 'in-progress', timestamp: 1795341600000 };
    expect(publishedSchema('vapi', 'ServerMessageStatusUpdate')(status)).toBe(true);
  });

  it('turns an end-of-call report into our end: outcome and collected data from structured data, transcript, duration, summary, recording', () => {
    expect(switchboardCallIdOf(report)).toBe('call_abc');
    expect(vapiEndedEvent(report, 'call_abc', OUTCOMES)).toEqual({
      type: 'ended',
      callId: 'call_abc',
      at: new Date('2026-11-21T10:00:42.400Z'),
      outcome: 'SOLD',
      endedReason: 'customer-ended-call',
      answeredAt: new Date('2026-11-21T10:00:00.000Z'),
      transcript: [
        { role: 'agent', text: 'Hi Ada!', at: new Date(1795341601200).toISOString() },
        { role: 'user', text: 'Sign me up', at: new Date(1795341604000).toISOString() },
        { role: 'tool', name: 'create_lead', text: '{"id":"L-1"}', at: new Date(1795341606000).toISOString() },
      ],
      collectedData: { email: 'ada@example.com' },
      durationSeconds: 42,
      summary: 'Sold.',
      recordingUrl: 'https://storage.vapi.ai/vapi-call-1-mono.wav',
    });
  });

  it('finds the recording where each version of the report carries it, the combined mono one first', () => {
    const artifact = { messages: [] };
    const at = (extra: Record<string, unknown>, top: Record<string, unknown> = {}) =>
      vapiRecordingUrl({ ...report, ...top, artifact: { ...artifact, ...extra } });
    expect(
      at({
        recording: { mono: { combinedUrl: 'https://r/mono.wav' }, stereoUrl: 'https://r/stereo.wav' },
        recordingUrl: 'https://r/old.wav',
      }),
    ).toBe('https://r/mono.wav');
    expect(at({ recordingUrl: 'https://r/old.wav', stereoRecordingUrl: 'https://r/old-stereo.wav' })).toBe(
      'https://r/old.wav',
    );
    expect(at({ recording: { stereoUrl: 'https://r/stereo.wav' } })).toBe('https://r/stereo.wav');
    expect(at({ stereoRecordingUrl: 'https://r/old-stereo.wav' })).toBe('https://r/old-stereo.wav');
    expect(at({}, { recordingUrl: 'https://r/top.wav' })).toBe('https://r/top.wav');
    expect(at({ recording: { mono: { combinedUrl: '' } } })).toBeUndefined();
    // Both are in the published report: the recording under `artifact`, the summary under `analysis`.
    const validate = publishedSchema('vapi', 'ServerMessageEndOfCallReport');
    expect(validate({ ...report, artifact: { recordingUrl: 'https://r/old.wav' } })).toBe(true);
    const bare = vapiEndedEvent({ ...report, artifact: {}, analysis: { summary: '' } }, 'c', OUTCOMES);
    expect(bare.summary).toBeUndefined();
    expect(bare.recordingUrl).toBeUndefined();
  });

  it('uses COMPLETED when the status is not one of the agent’s outcomes, and the disposition for unanswered calls', () => {
    const unknownStatus = { ...report, analysis: { structuredData: { status: 'MAYBE' } } };
    expect(vapiEndedEvent(unknownStatus, 'c', OUTCOMES).outcome).toBe('COMPLETED');
    const busy = vapiEndedEvent({ ...report, endedReason: 'customer-busy' }, 'c', OUTCOMES);
    expect(busy).toMatchObject({ outcome: 'BUSY', endedReason: 'customer-busy', durationSeconds: 0 });
    expect(busy.answeredAt).toBeUndefined();
  });

  it('reads status updates, and tool calls with arguments as an object or as JSON text', () => {
    expect(vapiStatusEvent({ status: 'ringing', timestamp: 1795341600000 }, 'c')).toEqual({
      type: 'ringing',
      callId: 'c',
      at: new Date(1795341600000),
    });
    expect(vapiStatusEvent({ status: 'in-progress' }, 'c')?.type).toBe('answered');
    expect(vapiStatusEvent({ status: 'queued' }, 'c')).toBeUndefined();
    // A time beyond what a date holds is no time, not an error: the message's arrival stands for it.
    const now = () => new Date(1795341600000);
    expect(vapiStatusEvent({ status: 'ringing', timestamp: 1e20 }, 'c', now)).toEqual({
      type: 'ringing',
      callId: 'c',
      at: now(),
    });
    const far = vapiEndedEvent({ ...report, endedAt: 1e20, startedAt: -1e20 }, 'c', OUTCOMES, now);
    expect(far).toMatchObject({ at: now(), durationSeconds: 0 });
    expect(far.answeredAt).toBeUndefined();

    const message = {
      type: 'tool-calls',
      toolWithToolCallList: [],
      toolCallList: [
        { id: 't1', type: 'function', function: { name: 'create_lead', arguments: { email: 'a@b.c' } } },
        { id: 't2', type: 'function', function: { name: 'create_lead', arguments: '{"email":"d@e.f"}' } },
        { id: 't3', type: 'function', function: { name: 'create_lead', arguments: '{not json' } },
      ],
    };
    // The published schema has `arguments` as text; Vapi's documentation: it also arrives as an object (decision 0017).
    const asText = { ...message, toolCallList: message.toolCallList.slice(1) };
    expect(publishedSchema('vapi', 'ServerMessageToolCalls')(asText)).toBe(true);
    expect(vapiToolCalls(message)).toEqual([
      { toolCallId: 't1', name: 'create_lead', args: { email: 'a@b.c' } },
      { toolCallId: 't2', name: 'create_lead', args: { email: 'd@e.f' } },
      { toolCallId: 't3', name: 'create_lead', args: '{not json' },
    ]);
    const answer = vapiToolResults([
      { toolCallId: 't1', name: 'create_lead', result: '{\n  "id": "L-1"\n}', error: false },
      { toolCallId: 't3', name: 'create_lead', result: 'Error: bad\narguments', error: true },
    ]);
    expect(answer).toEqual({
      results: [
        { toolCallId: 't1', name: 'create_lead', result: '{ "id": "L-1" }' },
        { toolCallId: 't3', name: 'create_lead', error: 'Error: bad arguments' },
      ],
    });
    expect(publishedSchema('vapi', 'ServerMessageResponseToolCalls')(answer)).toBe(true);
  });
});

describe('Vapi bodies as the webhook keeps them (decision 0121)', () => {
  /** Everything the webhook reads of a message. */
  const read = (body: Record<string, unknown>) => {
    const message = body.message as Record<string, unknown>;
    return {
      id: switchboardCallIdOf(message),
      vapiId: vapiCallIdOf(message),
      incoming: vapiIncomingCall(message),
      ended: vapiEndedEvent(message, 'c', OUTCOMES, () => new Date(0)),
      status: vapiStatusEvent(message, 'c', () => new Date(0)),
      tools: vapiToolCalls(message),
      type: message.type,
    };
  };
  const kept = (body: unknown) => projectJson(body, VAPI_BODY_READ) as Record<string, unknown>;

  it('reads the same of a report kept as VAPI_BODY_READ keeps it as of the whole body, and keeps little of it', () => {
    const whole = { message: report };
    expect(read(kept(whole))).toEqual(read(whole));
    const words = Array.from({ length: 200 }, (_, i) => ({ word: 'yes', start: i, end: i + 0.5, confidence: 0.9 }));
    const large = {
      message: {
        ...report,
        transcript: 'AI: Hi Ada!\nUser: Sign me up'.repeat(100),
        messagesOpenAIFormatted: Array.from({ length: 100 }, () => ({ role: 'user', content: 'Sign me up' })),
        artifact: { ...(report.artifact as object), words, transcript: 'AI: Hi Ada!'.repeat(100) },
        costs: Array.from({ length: 20 }, () => ({ type: 'model', cost: 0.01, promptTokens: 100 })),
      },
    };
    expect(read(kept(large))).toEqual(read(large));
    expect(JSON.stringify(kept(large)).length).toBeLessThan(JSON.stringify(large).length / 5);
  });

  it('reads the same of any message kept as of the whole, whatever stands where the webhook looks', () => {
    // Mostly what the mapper reads (texts, times as numbers and as dates), sometimes anything at all.
    const anything = fc.oneof(
      fc.string({ minLength: 1 }),
      fc.integer(),
      fc.date({ noInvalidDate: true }).map((at) => at.toISOString()),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constant(undefined),
    );
    // An object with these fields (each may be undefined, and so left out), or anything else.
    const holder = (fields: Record<string, fc.Arbitrary<unknown>>) =>
      fc.oneof({ arbitrary: fc.record(fields), weight: 4 }, { arbitrary: anything, weight: 1 });
    const metadata = holder({ switchboardCallId: anything });
    const numbered = holder({ number: anything });
    fc.assert(
      fc.property(
        fc.record(
          {
            type: fc.oneof(fc.constantFrom('end-of-call-report', 'status-update', 'tool-calls'), anything),
            metadata,
            customer: numbered,
            phoneNumber: numbered,
            call: holder({
              id: anything,
              type: fc.oneof(fc.constant('inboundPhoneCall'), anything),
              assistantId: anything,
              phoneNumberId: anything,
              metadata,
              assistantOverrides: holder({ metadata }),
              customer: numbered,
              phoneNumber: numbered,
            }),
            status: fc.oneof(fc.constantFrom('ringing', 'in-progress'), anything),
            timestamp: anything,
            endedReason: anything,
            startedAt: anything,
            endedAt: anything,
            analysis: holder({ summary: anything, structuredData: anything }),
            artifact: holder({
              messages: fc.oneof(
                anything,
                fc.array(
                  holder({
                    role: fc.oneof(fc.constantFrom('bot', 'assistant', 'user', 'tool_call_result'), anything),
                    message: anything,
                    time: anything,
                    name: anything,
                    result: anything,
                  }),
                ),
              ),
              recording: holder({ mono: holder({ combinedUrl: anything }), stereoUrl: anything }),
              recordingUrl: anything,
              stereoRecordingUrl: anything,
            }),
            recordingUrl: anything,
            toolCallList: fc.oneof(
              anything,
              fc.array(holder({ id: anything, function: holder({ name: anything, arguments: anything }) })),
            ),
          },
          { requiredKeys: [] },
        ),
        (message) => {
          const body = JSON.parse(JSON.stringify({ message }));
          expect(read(kept(body))).toEqual(read(body));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('Retell disconnection reasons', () => {
  it('gives every reason of the published OpenAPI file the disposition decision 0017 gives it', () => {
    const expected: Record<string, string> = {
      dial_no_answer: 'NO_ANSWER',
      user_declined: 'NO_ANSWER',
      dial_busy: 'BUSY',
      voicemail_reached: 'VOICEMAIL',
      dial_failed: 'FAILED',
      invalid_destination: 'FAILED',
      telephony_provider_permission_denied: 'FAILED',
      telephony_provider_unavailable: 'FAILED',
      sip_routing_error: 'FAILED',
      concurrency_limit_reached: 'FAILED',
      no_valid_payment: 'FAILED',
      scam_detected: 'FAILED',
      marked_as_spam: 'FAILED',
      registered_call_timeout: 'FAILED',
    };
    const reasons = publishedEnum('retell', ['DisconnectionReason']);
    expect(reasons).toContain('user_hangup');
    for (const reason of reasons) {
      const want = expected[reason] ?? (reason.startsWith('error_') ? 'FAILED' : 'answered');
      expect(retellDisposition(reason), reason).toBe(want);
    }
    expect(retellDisposition('user_hangup', true)).toBe('VOICEMAIL');
  });
});

/** A `call_analyzed` call as Retell sends it (checked against its published schema below). */
const retellCall = {
  call_type: 'phone_call',
  from_number: '+14155550100',
  to_number: '+14155550123',
  direction: 'outbound',
  call_id: 'retell-call-1',
  agent_id: 'agent_1',
  agent_version: 1,
  call_status: 'ended',
  metadata: { switchboardCallId: 'call_def' },
  start_timestamp: 1795341600000,
  end_timestamp: 1795341630000,
  duration_ms: 30000,
  disconnection_reason: 'user_hangup',
  transcript_object: [
    { role: 'agent', content: 'Hello Ada', words: [{ word: 'Hello', start: 0.5, end: 0.9 }] },
    { role: 'user', content: 'Not now', words: [{ word: 'Not', start: 3, end: 3.2 }] },
  ],
  collected_dynamic_variables: { plan: 'pro' },
  recording_url: 'https://retellai.s3.us-west-2.amazonaws.com/retell-call-1/recording.wav',
  call_analysis: {
    in_voicemail: false,
    call_summary: 'The user was not interested this week.',
    custom_analysis_data: { status: 'NOT_INTERESTED', reason: 'busy week' },
  },
};

describe('Retell calls', () => {
  it('the fixture keeps the published shape', () => {
    const validate = publishedSchema('retell', 'V2PhoneCallResponse');
    expect(validate(retellCall), JSON.stringify(validate.errors)).toBe(true);
  });

  it("the benchmark's 3-minute call_analyzed keeps the published shape, and ends its call with its outcome", () => {
    const { call } = retellCallAnalyzed(3, {
      call_id: 'rc_1',
      agent_id: 'agent_1',
      metadata: { switchboardCallId: 'call_x' },
    }) as {
      call: Record<string, unknown>;
    };
    const validate = publishedSchema('retell', 'V2PhoneCallResponse');
    expect(validate(call), JSON.stringify(validate.errors)).toBe(true);
    const ended = retellEndedEvent(call, 'call_x', OUTCOMES);
    expect(ended).toMatchObject({ outcome: 'SOLD', durationSeconds: 180, endedReason: 'user_hangup' });
    expect(ended.transcript).toHaveLength(41);
  });

  it('reads the same of a body kept as RETELL_BODY_READ keeps it as of the whole body', () => {
    const read = (body: Record<string, unknown>) => {
      const call = body.call as Record<string, unknown>;
      return {
        id: retellSwitchboardCallIdOf(call),
        ended: retellEndedEvent(call, 'c', OUTCOMES, () => new Date(0)),
        started: retellStartedEvent(call, 'c', () => new Date(0)),
      };
    };
    const report = retellCallAnalyzed(3, { call_id: 'rc_1', agent_id: 'a', metadata: { switchboardCallId: 'call_x' } });
    const kept = projectJson(report, RETELL_BODY_READ) as Record<string, unknown>;
    expect(read(kept)).toEqual(read(report));
    // Most of the bytes are what nobody reads: every word's timing and the transcript's other copies.
    expect(JSON.stringify(kept).length).toBeLessThan(JSON.stringify(report).length / 5);
    // Whatever the call holds where the mapper looks: the same end, answer and call id.
    const anything = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined));
    fc.assert(
      fc.property(
        fc.record({
          metadata: anything,
          disconnection_reason: anything,
          call_analysis: fc.oneof(anything, fc.record({ in_voicemail: anything, custom_analysis_data: anything })),
          start_timestamp: anything,
          end_timestamp: anything,
          duration_ms: anything,
          collected_dynamic_variables: anything,
          recording_url: anything,
          scrubbed_recording_url: anything,
          transcript_object: fc.oneof(
            anything,
            fc.array(fc.record({ role: anything, content: anything, words: anything }, { requiredKeys: [] })),
          ),
        }),
        (fields) => {
          const body = JSON.parse(JSON.stringify({ event: 'call_analyzed', call: { ...retellCall, ...fields } }));
          expect(read(projectJson(body, RETELL_BODY_READ) as Record<string, unknown>)).toEqual(read(body));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('turns a call_analyzed call into our end, and call_started into the answer', () => {
    expect(retellEndedEvent(retellCall, 'call_def', OUTCOMES)).toEqual({
      type: 'ended',
      callId: 'call_def',
      at: new Date(1795341630000),
      outcome: 'NOT_INTERESTED',
      endedReason: 'user_hangup',
      answeredAt: new Date(1795341600000),
      transcript: [
        { role: 'agent', text: 'Hello Ada', at: new Date(1795341600500).toISOString() },
        { role: 'user', text: 'Not now', at: new Date(1795341603000).toISOString() },
      ],
      collectedData: { plan: 'pro', reason: 'busy week' },
      durationSeconds: 30,
      summary: 'The user was not interested this week.',
      recordingUrl: 'https://retellai.s3.us-west-2.amazonaws.com/retell-call-1/recording.wav',
    });
    // An account that scrubs PII has the scrubbed recording; a call_ended has no analysis yet.
    const scrubbed = { ...retellCall, recording_url: undefined, scrubbed_recording_url: 'https://r/scrubbed.wav' };
    expect(retellEndedEvent(scrubbed, 'c', OUTCOMES).recordingUrl).toBe('https://r/scrubbed.wav');
    expect(retellEndedEvent({ ...retellCall, call_analysis: undefined }, 'c', OUTCOMES).summary).toBeUndefined();
    const voicemail = { ...retellCall, call_analysis: { in_voicemail: true } };
    expect(retellEndedEvent(voicemail, 'c', OUTCOMES)).toMatchObject({ outcome: 'VOICEMAIL', durationSeconds: 0 });
    expect(retellEndedEvent({ ...retellCall, call_analysis: {} }, 'c', OUTCOMES).outcome).toBe('COMPLETED');
    expect(retellStartedEvent(retellCall, 'c')).toEqual({ type: 'answered', callId: 'c', at: new Date(1795341600000) });
  });

  it('verifies x-retell-signature as the SDK signs it, and nothing else', async () => {
    const body = JSON.stringify({ event: 'call_ended', call: retellCall });
    const signature = await Retell.sign(body, 'key_retell');
    expect(verifyRetellSignature(body, 'key_retell', signature)).toBe(true);
    expect(verifyRetellSignature(Buffer.from(body), 'key_retell', signature)).toBe(true);
    expect(verifyRetellSignature(`${body} `, 'key_retell', signature)).toBe(false);
    expect(verifyRetellSignature(body, 'another_key', signature)).toBe(false);
    expect(verifyRetellSignature(body, 'key_retell', undefined)).toBe(false);
    expect(verifyRetellSignature(body, 'key_retell', 'v=1,d=00')).toBe(false);
    // Signed ten minutes ago: refused.
    const old = Date.now() - 10 * 60 * 1000;
    const stale = `v=${old},d=${createHmac('sha256', 'key_retell')
      .update(body + old)
      .digest('hex')}`;
    expect(verifyRetellSignature(body, 'key_retell', stale)).toBe(false);
  });

  it('agrees with the SDK’s Retell.verify on its signatures and on broken ones', async () => {
    const at = Date.now();
    const sign = (body: string, key: string, stamp: string) =>
      `v=${stamp},d=${createHmac('sha256', key)
        .update(body + Number(stamp))
        .digest('hex')}`;
    // Headers as a sender might break them: another stamp, leading zeros, upper-case hex, a short
    // or long digest, a stamp past the safe integers, spaces, a second field.
    const header = fc.oneof(
      fc.constant(String(at)),
      fc.integer({ min: -600_000, max: 600_000 }).map((off) => String(at + off)),
      fc.constant(`000${at}`),
      fc.constant('99999999999999999999'),
    );
    const mangle = fc.constantFrom(
      (s: string) => s,
      (s: string) => s.toUpperCase(),
      (s: string) => s.slice(0, -2),
      (s: string) => `${s}00`,
      (s: string) => ` ${s}`,
      (s: string) => `${s},v=1`,
      (s: string) => s.replace('d=', 'd=0'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary' }),
        fc.string({ minLength: 1 }),
        header,
        mangle,
        async (body, key, stamp, m) => {
          const signature = m(sign(body, key, stamp));
          const sdk = (await Retell.verify(body, key, signature)) === true;
          expect(verifyRetellSignature(body, key, signature)).toBe(sdk);
          expect(verifyRetellSignature(Buffer.from(body), key, signature)).toBe(sdk);
        },
      ),
      { numRuns: 300 },
    );
    // And the SDK's own signatures verify.
    for (const body of ['', '{}', 'é ✓ 😀', 'x'.repeat(70_000)]) {
      expect(verifyRetellSignature(Buffer.from(body), 'key_retell', await Retell.sign(body, 'key_retell'))).toBe(true);
    }
  });
});
