/**
 * The conversation the report helpers (vapi-report.ts, retell-report.ts) describe, each in its
 * provider's shape: speech at 165 words a minute in turns of 12 words, the agent first and then
 * taking turns, and a tool call every 6 minutes (decision 0029).
 */
export const CALL_START = Date.parse('2026-11-21T10:00:00.000Z');

const WORDS = ['yes', 'the', 'appointment', 'tomorrow', 'morning', 'would', 'work', 'for', 'me', 'thanks', 'and'];

export interface ScriptTurn {
  index: number;
  /** Seconds from the call's start. */
  at: number;
  agentSpeaks: boolean;
  words: string[];
  /** Whether the agent calls a tool after this turn. */
  toolCall: boolean;
}

export function callScript(minutes: number): ScriptTurn[] {
  const turns = Math.round((minutes * 165) / 12);
  const toolEvery = Math.max(1, Math.round(turns / (minutes / 6)));
  return Array.from({ length: turns }, (_, index) => ({
    index,
    at: (index * minutes * 60) / turns,
    agentSpeaks: index % 2 === 0,
    words: Array.from({ length: 12 }, (_, i) => WORDS[(index * 7 + i) % WORDS.length] as string),
    toolCall: index % toolEvery === 0,
  }));
}
