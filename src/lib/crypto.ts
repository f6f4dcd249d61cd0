import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * What a stored secret reads as (tool headers, integration tokens, provider keys). Writing it back
 * where a secret is stored keeps that secret, so a read-modify-write never replaces one with dots;
 * when it may, is decided in one place, write-only.ts.
 */
export const SECRET_MASK = '••••••';

/** Lowercase hex HMAC-SHA256 of `body` keyed with `secret`: the click-to-call `signature`. */
export function hmacSha256Hex(secret: string | Buffer, body: string | Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** SHA-256 hex: how API tokens, API keys and session ids are stored and looked up. */
export function sha256Hex(value: string | Buffer): string {
  // One call into C++ rather than three (`crypto.hash`, Node 20.12 and later): every click to call
  // hashes its token to find its agent.
  return hash('sha256', value, 'hex');
}

/** `bytes` random bytes, base64url: the body of every token and secret we issue. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Constant-time check of a hex signature against the expected digest. Anything that is not
 * 64 hex characters is a mismatch; the comparison itself never short-circuits on content.
 */
export function hexDigestEquals(expectedHex: string, receivedHex: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(receivedHex)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(receivedHex, 'hex'));
}

/** Constant-time equality of two strings of any length (lengths are not secret). */
export function constantTimeEquals(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * AES-256-GCM under the master key. `context` (a row id) is bound as associated data, so a
 * ciphertext copied onto another row does not decrypt. Format: `v1.<iv>.<tag>.<ciphertext>`, base64url.
 */
export interface SecretBox {
  encrypt(plaintext: string, context: string): string;
  decrypt(sealed: string, context: string): string;
  /** A keyed digest, for values derived from the master key (see agents/credentials.ts). */
  derive(purpose: string, input: string): string;
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== 32) throw new Error('The master key must be 32 bytes');
  const encryptionKey = createHmac('sha256', masterKey).update('switchboard/encryption/v1').digest();
  const derivationKey = createHmac('sha256', masterKey).update('switchboard/derivation/v1').digest();
  return {
    encrypt(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      cipher.setAAD(Buffer.from(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    decrypt(sealed, context) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('Unrecognised ciphertext');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
    derive(purpose, input) {
      return createHmac('sha256', derivationKey).update(`${purpose}\0${input}`).digest('base64url');
    },
  };
}
