import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { serveOnLoopback } from './loopback.js';

export interface ReceivedRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type ReceiverHandler = (request: ReceivedRequest, response: ServerResponse) => void;

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: ReceivedRequest[];
  /** Replaces how the receiver answers (default: 200 with `{"ok":true}`). */
  answer(handler: ReceiverHandler): void;
  close(): Promise<void>;
}

const answerOk: ReceiverHandler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end('{"ok":true}');
};

/** A real HTTP server on loopback standing in for a customer's endpoint; it records every request. */
export async function startReceiver(handler: ReceiverHandler = answerOk): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let current = handler;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      current(received, res);
    });
  });
  const { url, close } = await serveOnLoopback(server);
  return {
    url,
    requests,
    answer(next) {
      current = next;
    },
    close,
  };
}

/**
 * A receiver that holds every request unanswered until `open()`, then answers 200, recording the
 * call id of each body it answered in `delivered`. `open()` answers the held requests too or, with
 * `dropHeld`, drops their connections unanswered (a receiver that went away mid-request).
 */
export async function startGatedReceiver({ dropHeld = false }: { dropHeld?: boolean } = {}) {
  const held: (() => void)[] = [];
  const delivered = new Set<string>();
  let gate = true;
  const receiver = await startReceiver((request, response) => {
    const answer = () => {
      delivered.add(JSON.parse(request.body).callId);
      response.writeHead(200);
      response.end();
    };
    if (!gate) answer();
    else held.push(dropHeld ? () => response.destroy() : answer);
  });
  return {
    receiver,
    delivered,
    /** Requests held so far. */
    get held() {
      return held.length;
    },
    open() {
      gate = false;
      for (const release of held.splice(0)) release();
    },
  };
}
