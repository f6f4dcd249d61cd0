import { Worker } from 'node:worker_threads';

/**
 * What of a JSON document its reader keeps (decision 0109): `true` the whole value; an object
 * projection the members it names, each by its own projection; `[p]` every element of an array by
 * `p`, and `[p, n]` the first `n` of them. A string, number, boolean or null is kept as it is wherever
 * it stands; an array where an object is named, or an object where an array is, is left out.
 */
export type JsonProjection = true | { readonly [key: string]: JsonProjection } | readonly [JsonProjection, number?];

/**
 * `value` as `projection` keeps it (undefined: nothing kept). Its source also runs in the parsing
 * thread below, so it refers to nothing outside itself.
 */
export function projectJson(value: unknown, projection: JsonProjection): unknown {
  if (projection === true || value === null || typeof value !== 'object') return value;
  if (Array.isArray(projection)) {
    if (!Array.isArray(value)) return undefined;
    const each = projection[0] as JsonProjection;
    const count = Math.min(projection[1] ?? value.length, value.length);
    const kept: unknown[] = [];
    for (let i = 0; i < count; i++) kept.push(projectJson(value[i], each));
    return kept;
  }
  if (Array.isArray(value)) return undefined;
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(projection)) {
    if (!Object.hasOwn(value, key)) continue;
    const member = projectJson(
      (value as Record<string, unknown>)[key],
      (projection as Record<string, JsonProjection>)[key] as JsonProjection,
    );
    if (member !== undefined) kept[key] = member;
  }
  return kept;
}

/**
 * The JSON document in `bytes` (UTF-8, decoded as Buffer decodes it) as `projection` keeps it; throws
 * when the bytes are not JSON, or when their text matches `refuseIf`. Its source also runs in the
 * parsing thread below.
 */
function parseProjected(bytes: Uint8Array, projection: JsonProjection, refuseIf?: RegExp): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (refuseIf?.test(text)) throw new Error('refused');
  return projectJson(JSON.parse(text), projection);
}

/** The parsing thread: each message's bytes parsed and projected; `inline` when the result cannot be sent back. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
${projectJson.toString()}
${parseProjected.toString()}
parentPort.on('message', ({ id, bytes, projection, refuseIf }) => {
  let value;
  try {
    value = parseProjected(bytes, projection, refuseIf);
  } catch {
    parentPort.postMessage({ id, json: false });
    return;
  }
  try {
    parentPort.postMessage({ id, json: true, value });
  } catch {
    parentPort.postMessage({ id, inline: true });
  }
});
`;

/** Bodies from this size are parsed in the parsing thread; smaller ones cost more to send there than to parse. */
export const OFF_THREAD_FROM_BYTES = 16 * 1024;

export interface JsonBodies {
  /**
   * The JSON document in `bytes` (UTF-8) as `projection` keeps it, or undefined when the bytes are
   * not JSON or their text matches `refuseIf` (a pattern without the `g` or `y` flag: a text the
   * caller reads otherwise). A large body is parsed in a thread of its own: the event loop only
   * copies its bytes there and takes back what is kept.
   */
  parse(bytes: Uint8Array, projection: JsonProjection, refuseIf?: RegExp): Promise<{ value: unknown } | undefined>;
  /** Starts the parsing thread ahead of the first large body (about 30 ms). */
  warm(): void;
  /** Stops the parsing thread; bodies parsed later are parsed on the event loop. */
  close(): Promise<void>;
}

/** On the event loop: what the parsing thread does, for small bodies and when it cannot. */
function parseHere(
  bytes: Uint8Array,
  projection: JsonProjection,
  refuseIf: RegExp | undefined,
): { value: unknown } | undefined {
  try {
    return { value: parseProjected(bytes, projection, refuseIf) };
  } catch {
    return undefined;
  }
}

interface Pending {
  bytes: Uint8Array;
  projection: JsonProjection;
  refuseIf: RegExp | undefined;
  resolve: (parsed: { value: unknown } | undefined) => void;
}

type Reply = { id: number; json: false } | { id: number; json: true; value: unknown } | { id: number; inline: true };

/**
 * Provider webhooks' large bodies (a three-minute call's Retell report is 60 KB, most of it every
 * word's timing) parsed off the event loop, keeping only what the reader uses (decision 0109). One
 * thread, started at the first large body (or `warm`), unreferenced so that it never holds the
 * process open. Should it exit or fail, the bodies it had are parsed on the event loop and the next
 * large body starts another.
 */
export function createJsonBodies({ offThreadFromBytes = OFF_THREAD_FROM_BYTES } = {}): JsonBodies {
  let worker: Worker | undefined;
  let closed = false;
  let nextId = 0;
  const pending = new Map<number, Pending>();

  const parseAllHere = () => {
    for (const { bytes, projection, refuseIf, resolve } of pending.values())
      resolve(parseHere(bytes, projection, refuseIf));
    pending.clear();
  };

  const start = (): Worker => {
    const started = new Worker(WORKER_SOURCE, { eval: true });
    started.unref();
    started.on('message', (reply: Reply) => {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if ('inline' in reply) waiting.resolve(parseHere(waiting.bytes, waiting.projection, waiting.refuseIf));
      else waiting.resolve(reply.json ? { value: reply.value } : undefined);
    });
    const gone = () => {
      if (worker !== started) return;
      worker = undefined;
      parseAllHere();
    };
    started.on('error', gone);
    started.on('exit', gone);
    // A reply that cannot be read names no body: the thread is stopped, and what it had is parsed here.
    started.on('messageerror', () => void started.terminate());
    return started;
  };

  return {
    parse(bytes, projection, refuseIf) {
      if (closed || bytes.byteLength < offThreadFromBytes)
        return Promise.resolve(parseHere(bytes, projection, refuseIf));
      worker ??= start();
      const id = nextId++;
      // A copy of the bytes alone (a Buffer may be a view of a larger pool), handed over without another.
      const copy = new Uint8Array(bytes);
      return new Promise((resolve) => {
        pending.set(id, { bytes, projection, refuseIf, resolve });
        worker?.postMessage({ id, bytes: copy, projection, refuseIf }, [copy.buffer]);
      });
    },
    warm() {
      if (!closed) worker ??= start();
    },
    async close() {
      closed = true;
      const stopping = worker;
      worker = undefined;
      parseAllHere();
      await stopping?.terminate();
    },
  };
}
