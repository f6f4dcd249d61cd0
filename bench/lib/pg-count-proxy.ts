import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy between a Switchboard process and PostgreSQL that reads the frontend protocol going
 * through it and counts the statements the server sends: simple queries ('Q') and extended-protocol
 * executions ('E', named after the text of the statement parsed for them), and the round trips
 * ('Q' and 'S'ync). Used only for the query-count phase, never while throughput is measured.
 */
export interface StatementCounts {
  statements: number;
  roundTrips: number;
  byStatement: Record<string, number>;
}

export interface CountingProxy {
  port: number;
  reset(): void;
  counts(): StatementCounts;
  close(): Promise<void>;
}

/** "select agents", "insert calls", "update calls set status,answered_at", "begin", … */
export function describeStatement(text: string): string {
  const sql = text.replace(/\s+/g, ' ').trim().toLowerCase();
  const verb = /^(\w+)/.exec(sql)?.[1] ?? '?';
  if (verb === 'select') {
    const table = /\bfrom "?(\w+)"?/.exec(sql)?.[1];
    return table ? `select ${table}` : sql.slice(0, 40);
  }
  if (verb === 'insert') return `insert ${/^insert into "?(\w+)"?/.exec(sql)?.[1] ?? '?'}`;
  if (verb === 'delete') return `delete ${/^delete from "?(\w+)"?/.exec(sql)?.[1] ?? '?'}`;
  if (verb === 'update') {
    const table = /^update "?(\w+)"?/.exec(sql)?.[1] ?? '?';
    const set = / set (.*?) where /.exec(sql)?.[1] ?? '';
    const columns = [...set.matchAll(/"(\w+)" =/g)].map((m) => m[1]);
    return `update ${table} set ${columns.join(',')}`;
  }
  return verb;
}

function cstring(buffer: Buffer, at: number): [string, number] {
  const end = buffer.indexOf(0, at);
  return [buffer.toString('utf8', at, end), end + 1];
}

export async function startCountingProxy(upstream: { host: string; port: number }): Promise<CountingProxy> {
  let counts: StatementCounts = { statements: 0, roundTrips: 0, byStatement: {} };
  const sockets = new Set<Socket>();

  const count = (statement: string) => {
    counts.statements++;
    counts.byStatement[statement] = (counts.byStatement[statement] ?? 0) + 1;
  };

  const server = createServer((client) => {
    const backend = connect(upstream.port, upstream.host);
    sockets.add(client);
    sockets.add(backend);
    const closeBoth = () => {
      client.destroy();
      backend.destroy();
      sockets.delete(client);
      sockets.delete(backend);
    };
    client.on('error', closeBoth);
    backend.on('error', closeBoth);
    client.on('close', closeBoth);
    backend.on('close', closeBoth);
    backend.pipe(client);

    let pending: Buffer = Buffer.alloc(0);
    let startup = true;
    const named = new Map<string, string>();
    let lastParsed = '';
    let bound = '';
    client.on('data', (chunk: Buffer) => {
      backend.write(chunk);
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (startup) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readInt32BE(4);
          // SSLRequest / GSSENCRequest come before the real startup message.
          if (code !== 80877103 && code !== 80877104) startup = false;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) return;
        const type = String.fromCharCode(pending[0]!);
        const total = 1 + pending.readInt32BE(1);
        if (pending.length < total) return;
        const message = pending.subarray(0, total);
        pending = pending.subarray(total);
        if (type === 'Q') {
          count(describeStatement(cstring(message, 5)[0]));
          counts.roundTrips++;
        } else if (type === 'P') {
          const [name, next] = cstring(message, 5);
          lastParsed = describeStatement(cstring(message, next)[0]);
          if (name) named.set(name, lastParsed);
        } else if (type === 'B') {
          const [, next] = cstring(message, 5);
          const statement = cstring(message, next)[0];
          bound = statement ? (named.get(statement) ?? statement) : lastParsed;
        } else if (type === 'E') {
          count(bound);
        } else if (type === 'S') {
          counts.roundTrips++;
        }
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    reset() {
      counts = { statements: 0, roundTrips: 0, byStatement: {} };
    },
    counts: () => ({ ...counts, byStatement: { ...counts.byStatement } }),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
