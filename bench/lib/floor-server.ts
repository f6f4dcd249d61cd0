/**
 * The floor: the least a click-to-call endpoint can do, on bare `node:http`. Reads the body,
 * checks the hex HMAC-SHA256 `signature` header in constant time, parses the JSON, answers a small
 * JSON. Run as its own child process by bench/click-to-call.ts (env FLOOR_PORT, FLOOR_SECRET).
 *
 * With FLOOR_REFUSAL_DELAY_MS set, a wrong signature is answered 403 that long late on average (0.5
 * to 1.5 times it, at random), as the service paces its refusals (decision 0029): the floor of the
 * reject path does the same work, holding the answer included (decision 0059). Answers due in the
 * same 20 ms go out from one timer, as src/lib/refusal-pacer.ts does.
 */
import { createServer } from 'node:http';
import { listenUntilStopped, readBody, sendJson as send, validHexHmac } from './floor-http.js';

const port = Number(process.env.FLOOR_PORT);
const secret = process.env.FLOOR_SECRET ?? '';
const refusalDelayMs = Number(process.env.FLOOR_REFUSAL_DELAY_MS ?? 0);
const MAX_BODY = 64 * 1024;
const SLOT_MS = 20;

const slots = new Map<number, (() => void)[]>();
function refuseLate(answer: () => void): void {
  const slot = Math.ceil((Date.now() + refusalDelayMs * (0.5 + Math.random())) / SLOT_MS) * SLOT_MS;
  const due = slots.get(slot);
  if (due) {
    due.push(answer);
    return;
  }
  slots.set(slot, [answer]);
  setTimeout(() => {
    const answers = slots.get(slot) ?? [];
    slots.delete(slot);
    for (const send of answers) send();
  }, slot - Date.now());
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { status: 'ok' });
  readBody(req, res, MAX_BODY, (body) => {
    if (!validHexHmac(secret, body, req.headers.signature)) {
      const refuse = () => send(res, 403, { success: false, code: 'ctc:006' });
      return refusalDelayMs > 0 ? refuseLate(refuse) : refuse();
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
