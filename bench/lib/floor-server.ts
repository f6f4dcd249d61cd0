/**
 * The floor: the least a click-to-call endpoint can do, on bare `node:http`. Reads the body,
 * checks the hex HMAC-SHA256 `signature` header in constant time, parses the JSON, answers a small
 * JSON. Run as its own child process by bench/click-to-call.ts (env FLOOR_PORT, FLOOR_SECRET).
 *
 * With FLOOR_REFUSAL_DELAY_MS set, a wrong signature is answered 403 that long late on average (0.5
 * to 1.5 times it, at random), by the service's own pacer (src/lib/refusal-pacer.ts, decision 0029):
 * the floor of the reject path does the same work, holding the answer included (decision 0059).
 */
import { createServer } from 'node:http';
import { HTTP_LIMITS } from '../../src/http-limits.js';
import { createRefusalPacer } from '../../src/lib/refusal-pacer.js';
import { listenUntilStopped, readBody, sendJson as send, validHexHmac } from './floor-http.js';

const port = Number(process.env.FLOOR_PORT);
const secret = process.env.FLOOR_SECRET ?? '';
const MAX_BODY = 64 * 1024;
const refusals = createRefusalPacer({
  delayMs: Number(process.env.FLOOR_REFUSAL_DELAY_MS ?? 0),
  maxHeld: HTTP_LIMITS.maxHeldRefusals,
});

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { status: 'ok' });
  readBody(req, res, MAX_BODY, (body) => {
    if (!validHexHmac(secret, body, req.headers.signature)) {
      return refusals.pace(() => send(res, 403, { success: false, code: 'ctc:006' }));
    }
    let parsed: { phone?: unknown };
    try {
      parsed = JSON.parse(body.toString('utf8')) as { phone?: unknown };
    } catch {
      return send(res, 400, { success: false, code: 'ctc:009' });
    }
    send(res, 200, { success: true, phone: parsed.phone, status: 'queued' });
  });
});

listenUntilStopped(server, port);
