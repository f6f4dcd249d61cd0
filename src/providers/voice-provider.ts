import type { SimulatorScenario } from '../agents/agents.schemas.js';
import type { TranscriptTurn } from '../db/schema/index.js';

import type { ProviderName } from './provider-names.js';

export type { ProviderName };

/**
 * The caller id of a simulator call whose agent has no `fromNumber` (docs/interface.md#calls): E.164
 * in shape, but a fictional line (555-0100, in area code 555, which is not assigned), so it can
 * never ring anyone. Real providers always have a number (an agent without one is not configured).
 * Decision 0032.
 */
export const SIMULATED_CALLER_ID = '+15555550100';

/** What a provider needs to place one call. */
export interface StartCallRequest {
  /** Our call id; real providers carry it back as `metadata.switchboardCallId`. */
  callId: string;
  agent: {
    id: string;
    organizationId: string;
    name: string;
    prompt: string;
    firstMessage: string;
    fromNumber: string | null;
    providerCredentialId: string | null;
    /** The agent's id at the provider once published (Vapi assistant, Retell agent). */
    providerAgentId: string | null;
    simulator: SimulatorScenario | null;
  };
  to: string;
  /** Click-to-call variables, every value a string ("" for optional ones). */
  variables: Record<string, string>;
}

export type StartCallResult = { ok: true; providerCallId: string } | { ok: false; message: string };

/**
 * What happens on a call, as every provider reports it. Providers turn their own webhooks (or, for
 * the simulator, its script) into these; the calls service applies them.
 */
export type CallEvent =
  | { type: 'ringing'; callId: string; at: Date }
  | { type: 'answered'; callId: string; at: Date }
  | { type: 'transcript'; callId: string; turn: TranscriptTurn }
  | {
      type: 'ended';
      callId: string;
      at: Date;
      outcome: string;
      /** Why the call ended, in our words (`agent_hangup`, `no_answer`, `busy`, `voicemail`, …). */
      endedReason: string;
      /** When the callee answered, if the report says so (kept only if no earlier event did). */
      answeredAt?: Date;
      /** The whole transcript, when the provider's end-of-call report carries it. */
      transcript?: TranscriptTurn[];
      /** As the report gave it: typed against the agent's `collect` when the call ends. */
      collectedData: Record<string, unknown>;
      durationSeconds: number;
      /** The provider's (or the scenario's) summary of the call. */
      summary?: string;
      /** Where the provider keeps the call's recording, when it made one. */
      recordingUrl?: string;
    };

export type CallEventSink = (event: CallEvent) => Promise<void>;

/** What the agent is told after a tool it called ran (or could not). */
export interface ToolCallResult {
  /** The text handed to the agent: the endpoint's response, or an error it can recover from. */
  result: string;
  /** Null when the tool succeeded; otherwise the cause in a few words. */
  error: string | null;
}

/** A tool call made by the agent during a call, as every provider delivers one. */
export type ToolInvoker = (call: { callId: string; name: string; args: unknown }) => Promise<ToolCallResult>;

/** The port every voice provider implements (docs/interface.md#providers). */
export interface VoiceProvider {
  readonly name: ProviderName;
  /** Asks the provider to place the call. Refusals are values; a thrown error is a failure too. */
  startCall(request: StartCallRequest): Promise<StartCallResult>;
  /** Stops whatever the provider runs in this process (the simulator's calls). */
  close(): Promise<void>;
}

export type ProviderRegistry = Partial<Record<ProviderName, VoiceProvider>>;
