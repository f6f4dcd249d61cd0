/** What a provider webhook handler answers: a status and a JSON body. */
export type WebhookAnswer = { status: number; body: unknown };

/** A refusal, as every provider webhook says it: `{error: "…"}` with its status. */
export const refuse = (status: number, message: string): WebhookAnswer => ({ status, body: { error: message } });
