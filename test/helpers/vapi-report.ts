import { CALL_START, callScript } from './call-script.js';

/**
 * A Vapi end-of-call report as large as a real one of `minutes` minutes, in the shape Vapi's server
 * messages document (`ServerMessageEndOfCallReport`): the transcript appears as text twice
 * (`transcript`, `artifact.transcript`), as Vapi messages twice (`messages`, `artifact.messages`;
 * the caller's turns with word-level confidences from the transcriber) and once in OpenAI's format,
 * beside the call, the assistant (prompt and tools), per-turn latencies and costs. The
 * conversation is call-script.ts's.
 */
export function vapiEndOfCallReport(
  minutes: number,
  call: { id: string; assistantOverrides: { metadata: Record<string, string> } },
): Record<string, unknown> {
  const start = CALL_START;
  const script = callScript(minutes);
  const turns = script.length;
  const messages: Record<string, unknown>[] = [
    { role: 'system', message: 'You are a scheduling assistant. '.repeat(250), time: start, secondsFromStart: 0 },
  ];
  const openAi: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a scheduling assistant. '.repeat(250) },
  ];
  const lines: string[] = [];
  const latencies: Record<string, number>[] = [];
  for (const { index: turn, at, agentSpeaks, words, toolCall: callsTool } of script) {
    const text = words.join(' ');
    const role = agentSpeaks ? 'bot' : 'user';
    const message: Record<string, unknown> = {
      role,
      message: text,
      time: start + at * 1000,
      endTime: start + (at + 3.6) * 1000,
      secondsFromStart: at,
      duration: 3600,
      ...(role === 'bot' ? { source: '' } : {}),
    };
    if (role === 'user') {
      message.metadata = {
        wordLevelConfidence: text.split(' ').map((word, i) => ({
          word,
          start: at + i * 0.3,
          end: at + i * 0.3 + 0.28,
          confidence: 0.9987,
          punctuated_word: word,
        })),
      };
      latencies.push({
        modelLatency: 612,
        voiceLatency: 301,
        transcriberLatency: 140,
        endpointingLatency: 210,
        turnLatency: 1263,
      });
    }
    messages.push(message);
    openAi.push({ role: role === 'bot' ? 'assistant' : 'user', content: text });
    lines.push(`${role === 'bot' ? 'AI' : 'User'}: ${text}`);
    if (callsTool) {
      const toolCall = {
        id: `call_${turn}`,
        type: 'function',
        function: { name: 'check_availability', arguments: '{"date":"2026-11-22","slot":"morning"}' },
      };
      messages.push({
        role: 'tool_calls',
        toolCalls: [toolCall],
        message: '',
        time: start + at * 1000,
        secondsFromStart: at,
      });
      messages.push({
        role: 'tool_call_result',
        toolCallId: toolCall.id,
        name: 'check_availability',
        result: '{"available":true,"slots":["09:00","09:30","10:00"]}',
        time: start + at * 1000,
        secondsFromStart: at,
      });
      openAi.push({ role: 'assistant', tool_calls: [toolCall] });
      openAi.push({ role: 'tool', tool_call_id: toolCall.id, content: '{"available":true}' });
    }
  }
  const transcript = lines.join('\n');
  const endedAt = new Date(start + minutes * 60_000).toISOString();
  return {
    message: {
      type: 'end-of-call-report',
      timestamp: start + minutes * 60_000,
      endedReason: 'customer-ended-call',
      startedAt: new Date(start).toISOString(),
      endedAt,
      durationMs: minutes * 60_000,
      durationSeconds: minutes * 60,
      durationMinutes: minutes,
      cost: 0.09 * minutes,
      costBreakdown: { transport: 0.01, stt: 0.01, llm: 0.02, tts: 0.04, vapi: 0.05, total: 0.13 },
      costs: [
        { type: 'transcriber', minutes, cost: 0.01 * minutes },
        { type: 'model', promptTokens: 4000 * turns, completionTokens: 30 * turns, cost: 0.02 * minutes },
        { type: 'voice', characters: 60 * turns, cost: 0.04 * minutes },
      ],
      summary: 'The customer booked an appointment for tomorrow morning. '.repeat(6),
      transcript,
      messages,
      recordingUrl: 'https://storage.vapi.ai/0d3f6a5e-recording.wav',
      stereoRecordingUrl: 'https://storage.vapi.ai/0d3f6a5e-stereo.wav',
      analysis: {
        summary: 'The customer booked an appointment for tomorrow morning.',
        structuredData: { status: 'SOLD', email: 'ada@example.com' },
        successEvaluation: 'true',
      },
      artifact: {
        messages,
        messagesOpenAIFormatted: openAi,
        transcript,
        recordingUrl: 'https://storage.vapi.ai/0d3f6a5e-recording.wav',
        logUrl: 'https://calllogs.vapi.ai/0d3f6a5e.jsonl.gz',
        performanceMetrics: { turnLatencies: latencies, modelLatencyAverage: 612, voiceLatencyAverage: 301 },
      },
      call: {
        ...call,
        orgId: 'org-1',
        type: 'outboundPhoneCall',
        status: 'ended',
        customer: { number: '+14155550123' },
      },
      assistant: {
        name: 'Scheduler',
        firstMessage: 'Hi! I am calling about your appointment.',
        model: {
          provider: 'openai',
          model: 'gpt-4o',
          messages: [{ role: 'system', content: 'You are a scheduling assistant. '.repeat(250) }],
          tools: [{ type: 'function', function: { name: 'check_availability', parameters: { type: 'object' } } }],
        },
      },
      customer: { number: '+14155550123' },
    },
  };
}
