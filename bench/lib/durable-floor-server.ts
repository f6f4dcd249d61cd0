/**
 * The durable floor (issue 20 §1): the accept path's essential work done by hand on bare
 * `node:http`, as the least a click-to-call endpoint that records its calls can do. Per request:
 * read the body, look the `api-key` up in memory, check the hex HMAC-SHA256 `signature` in constant
 * time, JSON.parse, check the phone number (the same check our server makes, src/lib/phone-numbers.ts),
 * insert the call into PostgreSQL and answer 200 `{callId}` once that insert has committed; then end
 * the call (what a simulated call that ends at once does), written after the answer.
 *
 * Both writes are group commits: the requests waiting when a flush starts go in one multi-row
 * statement (`unnest` arrays, as src/click-to-call/click-to-call.repository.ts and
 * src/calls/calls.repository.ts write them), one flush of each kind in flight at a time, on a `pg`
 * Pool. The table is a copy of the essential columns of `calls` with its primary key and the
 * partial unique index on (agent_id, to_number) of open calls, so the insert does the index work
 * that refuses a second open call to a number (ctc:007); it has none of the list, stats and sweep
 * indexes nor the foreign keys of ours (the floor's table does only what accepting needs).
 *
 * Run as its own child process by bench/click-to-call.ts: env FLOOR_PORT, FLOOR_SECRET,
 * FLOOR_API_TOKEN, FLOOR_DATABASE_URL (a database of its own; the table is created at start).
 */
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';
import { newId } from '../../src/lib/ids.js';
import { isValidPhone } from '../../src/lib/phone-numbers.js';
import { listenUntilStopped, readBody, sendJson as send, validHexHmac } from './floor-http.js';

const port = Number(process.env.FLOOR_PORT);
const secret = process.env.FLOOR_SECRET ?? '';
const MAX_BODY = 64 * 1024;
const E164 = /^\+[1-9]\d{1,14}$/;
/** Rows per statement at most, as our batcher's default. */
const MAX_BATCH = 200;

/** The agent a token names, held in memory as our agent cache holds it. */
const agents = new Map([
  [process.env.FLOOR_API_TOKEN ?? '', { id: 'agt_floor', organizationId: 'org_floor', provider: 'simulator' }],
]);

const pool = new pg.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 4 });

const SCHEMA = `
create table if not exists calls (
  id text primary key,
  organization_id text not null,
  agent_id text not null,
  provider text not null,
  direction text not null default 'outbound',
  provider_call_id text,
  to_number text not null,
  status text not null,
  outcome text,
  ended_reason text,
  variables jsonb not null,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  ended_at timestamptz,
  duration_seconds integer,
  deadline_at timestamptz not null
);
create unique index if not exists calls_open_number_uq on calls (agent_id, to_number)
  where status <> 'ended' and direction = 'outbound';
`;

interface NewCall {
  id: string;
  organizationId: string;
  agentId: string;
  provider: string;
  toNumber: string;
  variables: string;
  startedAt: string;
  deadlineAt: string;
}

/**
 * Group commit by hand: `add` queues an item; when no flush is in flight, one starts with every
 * item queued so far (up to MAX_BATCH), and the next starts as soon as it returns.
 */
function groupCommit<In, Out>(flush: (items: In[]) => Promise<Out[]>) {
  let queue: { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void }[] = [];
  let flushing = false;
  const next = (): void => {
    if (flushing || queue.length === 0) return;
    flushing = true;
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(batch.length);
    flush(batch.map((entry) => entry.item))
      .then(
        (results) => {
          for (const [i, entry] of batch.entries()) entry.resolve(results[i] as Out);
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        flushing = false;
        next();
      });
  };
  return (item: In): Promise<Out> =>
    new Promise<Out>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      next();
    });
}

const insertCall = groupCommit(async (rows: NewCall[]): Promise<boolean[]> => {
  const column = <T>(pick: (row: NewCall) => T) => rows.map(pick);
  const result = await pool.query<{ id: string }>(
    `insert into calls (id, organization_id, agent_id, provider, to_number, status, variables, started_at, deadline_at)
     select v.id, v.organization_id, v.agent_id, v.provider, v.to_number, 'queued', v.variables::jsonb,
            v.started_at, v.deadline_at
     from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[],
                 $8::timestamptz[])
       as v(id, organization_id, agent_id, provider, to_number, variables, started_at, deadline_at)
     on conflict (agent_id, to_number) where status <> 'ended' and direction = 'outbound' do nothing
     returning id`,
    [
      column((r) => r.id),
      column((r) => r.organizationId),
      column((r) => r.agentId),
      column((r) => r.provider),
      column((r) => r.toNumber),
      column((r) => r.variables),
      column((r) => r.startedAt),
      column((r) => r.deadlineAt),
    ],
  );
  const inserted = new Set(result.rows.map((row) => row.id));
  return rows.map((row) => inserted.has(row.id));
});

const endCall = groupCommit(async (ids: string[]): Promise<undefined[]> => {
  const at = new Date().toISOString();
  await pool.query(
    `update calls set status = 'ended', outcome = 'completed', ended_reason = 'completed', ended_at = $2::timestamptz,
       duration_seconds = 0, provider_call_id = 'sim_' || calls.id
     from unnest($1::text[]) as v(id)
     where calls.id = v.id and calls.status <> 'ended'`,
    [ids, at],
  );
  return ids.map(() => undefined);
});

let endFailures = 0;

async function accept(
  agent: { id: string; organizationId: string; provider: string },
  phone: string,
  variables: unknown,
  res: ServerResponse,
): Promise<void> {
  const now = Date.now();
  const callId = newId('call', now);
  let inserted: boolean;
  try {
    inserted = await insertCall({
      id: callId,
      organizationId: agent.organizationId,
      agentId: agent.id,
      provider: agent.provider,
      toNumber: phone,
      variables: JSON.stringify(variables ?? {}),
      startedAt: new Date(now).toISOString(),
      deadlineAt: new Date(now + 3_600_000).toISOString(),
    });
  } catch {
    return send(res, 503, { success: false, code: 'ctc:008' });
  }
  if (!inserted) return send(res, 409, { success: false, code: 'ctc:007' });
  send(res, 200, { success: true, callId, status: 'queued' });
  // The call ends at once, after the answer.
  endCall(callId).catch(() => {
    endFailures++;
  });
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { status: 'ok', endFailures });
  readBody(req, res, MAX_BODY, (body) => {
    const token = req.headers['api-key'];
    const agent = typeof token === 'string' ? agents.get(token) : undefined;
    if (!agent) return send(res, 401, { success: false, code: 'ctc:002' });
    if (!validHexHmac(secret, body, req.headers.signature)) return send(res, 403, { success: false, code: 'ctc:006' });
    let parsed: { phone?: unknown; variables?: unknown };
    try {
      parsed = JSON.parse(body.toString('utf8')) as { phone?: unknown; variables?: unknown };
    } catch {
      return send(res, 400, { success: false, code: 'ctc:009' });
    }
    const phone = parsed.phone;
    if (typeof phone !== 'string' || !E164.test(phone) || !isValidPhone(phone))
      return send(res, 400, { success: false, code: 'ctc:003' });
    void accept(agent, phone, parsed.variables, res);
  });
});

await pool.query(SCHEMA);
listenUntilStopped(server, port, () => pool.end());
