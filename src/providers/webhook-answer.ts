import { Type } from '@sinclair/typebox';
/** What a provider webhook handler answers: a status and a JSON body. */
export type WebhookAnswer = {
  status: number;
  body: unknown;
  /** The call the webhook was about, once it was found and the webhook verified: for the logs. */
  callId?: string;
};

/** A refusal, as every provider webhook says it: `{error: "…"}` with its status. */
export const refuse = (status: number, message: string): WebhookAnswer => ({ status, body: { error: message } });

/** A provider webhook's refusal as the document shows it. */
export const WebhookRefusal = Type.Object({ error: Type.String() }, { $id: 'WebhookRefusal' });
