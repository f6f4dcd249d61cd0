import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signWebhook } from '../src/integrations/webhook-signature.js';
import { hmacSha256Hex } from '../src/lib/crypto.js';

// Module-level: the signing primitive that every delivery attempt will use, checked against the
// Standard Webhooks reference library as an independent verifier.
describe('webhook signatures', () => {
  const body = Buffer.from(JSON.stringify({ event: 'call.completed', agent: 'Café ☕ agent', text: 'Grüße, 你好' }));

  it('new secrets are whsec_ and the base64 of 32 random bytes', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
  });

  it('signs the exact bytes: x-webhook-signature is the hex HMAC keyed with the secret as shown, and Standard Webhooks verifies', () => {
    const secret = newSigningSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signWebhook({ body, webhookId: 'msg_1', timestamp, secrets: [secret] });
    expect(headers['x-webhook-signature']).toBe(hmacSha256Hex(secret, body));
    expect(headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(headers['x-webhook-signature-previous']).toBeUndefined();
    expect(headers).toMatchObject({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp) });
    expect(new Webhook(secret).verify(body.toString('utf8'), headers)).toEqual(JSON.parse(body.toString('utf8')));
    // One changed byte fails verification.
    const tampered = Buffer.from(body);
    tampered.writeUInt8(tampered.readUInt8(tampered.length - 3) ^ 1, tampered.length - 3);
    expect(() => new Webhook(secret).verify(tampered.toString('utf8'), headers)).toThrow();
  });

  it('during a rotation signs with both secrets: either verifies', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signWebhook({ body, webhookId: 'msg_2', timestamp, secrets: [current, previous] });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(headers['x-webhook-signature']).toBe(hmacSha256Hex(current, body));
    expect(headers['x-webhook-signature-previous']).toBe(hmacSha256Hex(previous, body));
    for (const secret of [current, previous])
      expect(() => new Webhook(secret).verify(body.toString(), headers)).not.toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body.toString(), headers)).toThrow();
  });
});
