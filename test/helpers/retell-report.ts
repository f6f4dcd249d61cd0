import { CALL_START, callScript } from './call-script.js';

/**
 * A Retell `call_analyzed` webhook as large as a real one of `minutes` minutes, in the shape Retell's
 * published `V2PhoneCallResponse` documents: the transcript as text (`transcript`), as utterances
 * with every word's timing (`transcript_object`), and again with the tool calls between them
 * (`transcript_with_tool_calls`), beside the latencies of every turn, the costs, the token usage and
 * the post-call analysis. The conversation is call-script.ts's, as in vapi-report.ts.
 */
export function retellCallAnalyzed(
  minutes: number,
  call: { call_id: string; agent_id: string; metadata: Record<string, string> },
): Record<string, unknown> {
  const start = CALL_START;
  const utterances: Record<string, unknown>[] = [];
  const withToolCalls: Record<string, unknown>[] = [];
  const lines: string[] = [];
  const latencies: number[] = [];
  for (const { index: turn, at, agentSpeaks, words: spoken, toolCall } of callScript(minutes)) {
    const role = agentSpeaks ? 'agent' : 'user';
    const utterance = {
      role,
      content: spoken.join(' '),
      words: spoken.map((word, i) => ({
        word: i === spoken.length - 1 ? `${word}.` : `${word} `,
        start: Math.round((at + i * 0.3) * 1000) / 1000,
        end: Math.round((at + i * 0.3 + 0.28) * 1000) / 1000,
      })),
    };
    utterances.push(utterance);
    withToolCalls.push(utterance);
    lines.push(`${role === 'agent' ? 'Agent' : 'User'}: ${utterance.content}`);
    if (role === 'agent') latencies.push(900 + ((turn * 37) % 400));
    if (toolCall) {
      const id = `tool_call_${turn}`;
      withToolCalls.push({
        role: 'tool_call_invocation',
        tool_call_id: id,
        name: 'check_availability',
        arguments: '{"date":"2026-11-22","slot":"morning"}',
      });
      withToolCalls.push({
        role: 'tool_call_result',
        tool_call_id: id,
        content: '{"available":true,"slots":["09:00","09:30","10:00"]}',
        successful: true,
      });
    }
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const latency = (scale: number) => ({
    p50: at(0.5) * scale,
    p90: at(0.9) * scale,
    p95: at(0.95) * scale,
    p99: at(0.99) * scale,
    max: (sorted.at(-1) ?? 0) * scale,
    min: (sorted[0] ?? 0) * scale,
    num: sorted.length,
    values: sorted.map((ms) => ms * scale),
  });
  const recording = `https://retellai.s3.us-west-2.amazonaws.com/${call.call_id}/recording.wav`;
  return {
    event: 'call_analyzed',
    call: {
      call_type: 'phone_call',
      from_number: '+14155550100',
      to_number: '+14155550123',
      direction: 'outbound',
      ...call,
      agent_name: 'Scheduler',
      agent_version: 1,
      call_status: 'ended',
      retell_llm_dynamic_variables: { name: 'Ada' },
      collected_dynamic_variables: { slot: 'morning' },
      data_storage_setting: 'everything',
      start_timestamp: start,
      end_timestamp: start + minutes * 60_000,
      duration_ms: minutes * 60_000,
      transcript: lines.join('\n'),
      transcript_object: utterances,
      transcript_with_tool_calls: withToolCalls,
      recording_url: recording,
      recording_multi_channel_url: recording.replace('recording.wav', 'recording_multichannel.wav'),
      public_log_url: `https://retellai.s3.us-west-2.amazonaws.com/${call.call_id}/public.log`,
      latency: { e2e: latency(1), llm: latency(0.55), tts: latency(0.25) },
      disconnection_reason: 'user_hangup',
      call_analysis: {
        call_summary: 'The customer booked an appointment for tomorrow morning. '.repeat(6),
        in_voicemail: false,
        user_sentiment: 'Positive',
        call_successful: true,
        custom_analysis_data: { status: 'SOLD', email: 'ada@example.com' },
      },
      call_cost: {
        product_costs: [
          { product: 'elevenlabs_tts', unit_price: 0.0117, cost: 0.0117 * minutes * 60 },
          { product: 'gpt_4o', unit_price: 0.0083, cost: 0.0083 * minutes * 60 },
        ],
        total_duration_seconds: minutes * 60,
        total_duration_unit_price: 0.02,
        combined_cost: 0.02 * minutes * 60,
      },
      llm_token_usage: {
        values: latencies.map((_, i) => 3000 + i * 40),
        average: 3000 + latencies.length * 20,
        num_requests: latencies.length,
      },
    },
  };
}
