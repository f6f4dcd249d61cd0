/**
 * The provider-webhook floor: the least an endpoint taking providers' reports can do, on bare
 * `node:http`, authenticating as our routes do and parsing the same bodies. Run as its own child
 * process by bench/provider-traffic.ts (env FLOOR_PORT, FLOOR_VAPI_SECRET, FLOOR_RETELL_KEY).
 *  - `POST /providers/vapi/webhook`: `x-vapi-secret` looked up by its SHA-256 among the known
 *    secrets and compared in constant time (our route's two checks), then the body read and
 *    `JSON.parse`d; answers `{}`.
 *  - `POST /providers/retell/webhook`: `x-retell-signature` (`v=<ms>,d=<hex>`) fresh within five
 *    minutes, the HMAC-SHA256 of body + timestamp keyed with the API key compared in constant time,
 *    then `JSON.parse`; answers `{}`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { listenUntilStopped, readBody, sendJson as send } from './floor-http.js';

const port = Number(process.env.FLOOR_PORT);
const vapiSecret = process.env.FLOOR_VAPI_SECRET ?? '';
const retellKey = process.env.FLOOR_RETELL_KEY ?? '';
const MAX_BODY = 4 * 1024 * 1024;
const TOO_LARGE = { error: 'too large' };
const RETELL_SIGNATURE = /^v=(\d{1,16}),d=([0-9a-f]{64})$/i;
const knownVapiSecrets = new Set([createHash('sha256').update(vapiSecret).digest('hex')]);

function vapiAuthentic(secret: string | string[] | undefined): boolean {
  if (typeof secret !== 'string') return false;
  if (!knownVapiSecrets.has(createHash('sha256').update(secret).digest('hex'))) return false;
  const given = Buffer.from(secret);
  const expected = Buffer.from(vapiSecret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function retellAuthentic(signature: string | string[] | undefined, body: Buffer): boolean {
  const match = typeof signature === 'string' ? RETELL_SIGNATURE.exec(signature) : null;
  if (!match || Math.abs(Date.now() - Number(match[1])) > 5 * 60_000) return false;
  const expected = createHmac('sha256', retellKey)
    .update(body.toString('utf8') + match[1])
    .digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

function parsed(res: ServerResponse, body: Buffer): void {
  let json = true;
  try {
    JSON.parse(body.toString('utf8'));
  } catch {
    json = false;
  }
  if (json) send(res, 200, {});
  else send(res, 400, { error: 'The body is not JSON' });
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { status: 'ok' });
  const path = (req.url ?? '').split('?')[0];
  if (req.method === 'POST' && path === '/providers/vapi/webhook') {
    // Our route checks the secret on the headers, before the body is read.
    if (!vapiAuthentic(req.headers['x-vapi-secret'])) return send(res, 401, { error: 'x-vapi-secret does not match' });
    return readBody(req, res, MAX_BODY, (body) => parsed(res, body), TOO_LARGE);
  }
  if (req.method === 'POST' && path === '/providers/retell/webhook') {
    return readBody(
      req,
      res,
      MAX_BODY,
      (body) =>
        retellAuthentic(req.headers['x-retell-signature'], body)
          ? parsed(res, body)
          : send(res, 401, { error: 'x-retell-signature does not verify' }),
      TOO_LARGE,
    );
  }
  send(res, 404, { error: 'no such route' });
});

listenUntilStopped(server, port);
