import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { runCli, type ServerProcess, startServerProcess } from './helpers/process.js';

const started: ServerProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGKILL')));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-proc-'));
  dirs.push(dir);
  return dir;
}

/** Every file and directory under `root` (itself included) that its group or others may access. */
function openToOthers(root: string): string[] {
  const open = (statSync(root).mode & 0o077) === 0 ? [] : [root];
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (!entry.isSymbolicLink() && (statSync(file).mode & 0o077) !== 0) open.push(file);
  }
  return open;
}

/** What a data dir made before decision 0030 looked like: directories 0755, files 0644. */
function loosen(root: string): void {
  chmodSync(root, 0o755);
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
  }
}

async function json(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as any };
}

async function setUpAgent(url: string, agent: Record<string, unknown> = {}) {
  const signup = await json(`${url}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      organization: 'Proc',
      email: `p-${randomBytes(4).toString('hex')}@example.com`,
      password: 'correct horse',
    }),
  });
  const auth = { authorization: `Bearer ${signup.body.apiKey}`, 'content-type': 'application/json' };
  const created = await json(`${url}/v1/agents`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'Proc agent', type: 'click_to_call', ...agent }),
  });
  const creds = await json(`${url}/v1/agents/${created.body.id}/credentials`, { headers: auth });
  return {
    auth,
    agentId: created.body.id as string,
    apiToken: creds.body.apiToken as string,
    apiSecret: creds.body.apiSecret as string,
  };
}

function signedCall(url: string, token: string, secret: string, body: string) {
  return json(`${url}/api/click-to-call`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'api-key': token,
      signature: createHmac('sha256', secret).update(body).digest('hex'),
    },
    body,
  });
}

describe('the embedded database directory', () => {
  it('creates master.key (0600), refuses a second process on the same dir, and survives kill -9', async () => {
    const dataDir = tempDir();
    // What a creation cut short leaves beside pgdata is discarded, not mistaken for a database.
    mkdirSync(path.join(dataDir, 'pgdata.creating'));
    writeFileSync(path.join(dataDir, 'pgdata.creating', 'PG_VERSION'), '17\n');
    const first = await startServerProcess({ SWITCHBOARD_DATA_DIR: dataDir });
    started.push(first);
    expect(existsSync(path.join(dataDir, 'pgdata.creating'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(true);
    const keyMode = statSync(path.join(dataDir, 'master.key')).mode & 0o777;
    expect(keyMode).toBe(0o600);

    const second = runCli(['serve'], { SWITCHBOARD_DATA_DIR: dataDir, PORT: '0' });
    const code = await second.exited;
    expect(code).not.toBe(0);
    expect(second.stderr()).toContain(dataDir);
    expect(second.stderr()).toContain('switchboard.lock');

    // Data written before a crash is there after it, and the stale lock is taken over.
    const { apiToken, apiSecret } = await setUpAgent(first.url);
    // Only the service's user can read the data dir: nothing in it is open to group or others.
    expect(openToOthers(dataDir)).toEqual([]);
    expect(await first.stop('SIGKILL')).toBe('SIGKILL');
    // A data dir left readable (by an older version, or by hand) is closed again at start.
    loosen(dataDir);
    expect(openToOthers(dataDir).length).toBeGreaterThan(900);
    const restarted = await startServerProcess({ SWITCHBOARD_DATA_DIR: dataDir });
    started.push(restarted);
    expect(openToOthers(dataDir)).toEqual([]);
    const call = await signedCall(restarted.url, apiToken, apiSecret, JSON.stringify({ phone: '+14155550123' }));
    expect(call.status).toBe(200);

    // SIGTERM closes cleanly and releases the lock.
    expect(await restarted.stop('SIGTERM')).toBe(0);
    expect(existsSync(path.join(dataDir, 'switchboard.lock'))).toBe(false);
  }, 90_000);
});

/** Two server processes sharing one fresh PostgreSQL database, stopped and dropped afterwards. */
async function withTwoServers(
  test: (a: ServerProcess, b: ServerProcess, db: TestDatabase) => Promise<void>,
): Promise<void> {
  const db = await createTestDatabase();
  try {
    const env = {
      DATABASE_URL: db.url!,
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      SWITCHBOARD_SIGNUP: 'open',
    };
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    started.push(a, b);
    await test(a, b, db);
  } finally {
    await Promise.all(started.splice(0).map((p) => p.stop('SIGKILL')));
    await db.drop();
  }
}

describe.runIf(process.env.TEST_DATABASE_URL)('two processes sharing one PostgreSQL', () => {
  it('hold the ctc:007 guard and maxConcurrentCalls together', async () => {
    await withTwoServers(async (a, b) => {
      // The limit is set when the agent is made: a change made later through one process reaches the
      // other's cache through the change feed, a moment later (that path has its own test below).
      // Calls stay open 10 s, well past both bursts even on a busy machine.
      const { apiToken, apiSecret } = await setUpAgent(a.url, {
        simulator: { delayMs: 10_000 },
        maxConcurrentCalls: 3,
      });

      const body = JSON.stringify({ phone: '+14155550123' });
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) => signedCall(i % 2 ? a.url : b.url, apiToken, apiSecret, body)),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
      expect(responses.filter((r) => r.body.code === 'ctc:007')).toHaveLength(29);

      const burst = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          signedCall(
            i % 2 ? a.url : b.url,
            apiToken,
            apiSecret,
            JSON.stringify({ phone: `+1415555${String(200 + i).padStart(4, '0')}` }),
          ),
        ),
      );
      // One call is still open from the first burst: two more fit under the limit of three.
      expect(burst.filter((r) => r.status === 200)).toHaveLength(2);
      expect(burst.filter((r) => r.body.code === 'ctc:007')).toHaveLength(10);
    });
  });
});

/** How soon a change through one process must reach another's agent cache: far under its 60 s TTL. */
const NOTIFIED_WITHIN_MS = 5000;

describe.runIf(process.env.TEST_DATABASE_URL)('agent changes across processes', () => {
  it('a rotation or a disable through one process takes effect in the other, whose cache held the agent', async () => {
    await withTwoServers(async (a, b) => {
      const { apiToken, agentId, auth } = await setUpAgent(a.url, { rateLimitPerMinute: null });
      const wrongSignature = (url: string, token: string) =>
        json(`${url}/api/click-to-call`, {
          method: 'POST',
          headers: { 'api-key': token, signature: '0'.repeat(64) },
          body: '{}',
        });
      // B now holds the agent in its cache.
      expect((await wrongSignature(b.url, apiToken)).body.code).toBe('ctc:006');

      const rotated = await json(`${a.url}/v1/agents/${agentId}/credentials/rotate`, {
        method: 'POST',
        headers: { authorization: auth.authorization },
      });
      expect(rotated.status).toBe(200);
      // The notification crosses processes in well under a millisecond on loopback. Without it, B's
      // cache would keep the agent for its 60 s: a window of 5 s tells the two apart on a machine
      // whose two cores run two test passes at once (250 ms did not, in CI on 2026-12-04).
      const refusedWithin = async (url: string, token: string, code: string) => {
        const deadline = Date.now() + NOTIFIED_WITHIN_MS;
        for (;;) {
          const response = await wrongSignature(url, token);
          if (response.body.code === code) return true;
          if (Date.now() > deadline) return false;
        }
      };
      expect(await refusedWithin(b.url, apiToken, 'ctc:003')).toBe(true);
      expect(
        (
          await signedCall(
            b.url,
            rotated.body.apiToken,
            rotated.body.apiSecret,
            JSON.stringify({ phone: '+14155550123' }),
          )
        ).status,
      ).toBe(200);

      await json(`${a.url}/v1/agents/${agentId}`, {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify({ enabled: false }),
      });
      const body = JSON.stringify({ phone: '+14155550124' });
      const deadline = Date.now() + NOTIFIED_WITHIN_MS;
      let code = '';
      while (code !== 'ctc:004' && Date.now() < deadline) {
        code = (await signedCall(b.url, rotated.body.apiToken, rotated.body.apiSecret, body)).body.code;
      }
      expect(code).toBe('ctc:004');
    });
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('a process that cannot hear the others', () => {
  it('serves nothing from its cache while its LISTEN connection is down, and forgets it on reconnect', async () => {
    await withTwoServers(async (a, b, db) => {
      const { apiToken, agentId, auth } = await setUpAgent(a.url, { rateLimitPerMinute: null });
      const probe = () =>
        json(`${b.url}/api/click-to-call`, {
          method: 'POST',
          headers: { 'api-key': apiToken, signature: '0'.repeat(64) },
          body: '{}',
        });
      expect((await probe()).body.code).toBe('ctc:006'); // B holds the agent in its cache
      // Cut every listening connection: B misses the notification of the rotation below.
      const { sql } = await import('drizzle-orm');
      await db.database.db.execute(
        sql`select pg_terminate_backend(pid) from pg_stat_activity where query = 'LISTEN switchboard_changes' and datname = current_database()`,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const rotated = await json(`${a.url}/v1/agents/${agentId}/credentials/rotate`, {
        method: 'POST',
        headers: { authorization: auth.authorization },
      });
      expect(rotated.status).toBe(200);
      // Whether B is still reconnecting or has reconnected, the old token is refused.
      expect((await probe()).body.code).toBe('ctc:003');
      await new Promise((resolve) => setTimeout(resolve, 1500)); // past the reconnect
      expect((await probe()).body.code).toBe('ctc:003');
    });
  });
});

describe('configuration', () => {
  it('refuses to serve a shared PostgreSQL without SWITCHBOARD_MASTER_KEY, and a malformed key', async () => {
    const missing = runCli(['serve'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', PORT: '0' });
    expect(await missing.exited).not.toBe(0);
    expect(missing.stderr()).toContain('SWITCHBOARD_MASTER_KEY is required with DATABASE_URL');
    const malformed = runCli(['serve'], {
      SWITCHBOARD_DATA_DIR: tempDir(),
      SWITCHBOARD_MASTER_KEY: 'c2hvcnQ=',
      PORT: '0',
    });
    expect(await malformed.exited).not.toBe(0);
    expect(malformed.stderr()).toContain('32 bytes');
  });
});

describe('the CLI', () => {
  it('sign prints the hex HMAC-SHA256 of standard input', async () => {
    const body = '{"phone":"+14155550123","variables":{"name":"Zoë"}}';
    const run = runCli(['sign', '--secret', 'ctcs_secret'], {}, body);
    expect(await run.exited).toBe(0);
    expect(run.stdout().trim()).toBe(createHmac('sha256', 'ctcs_secret').update(body).digest('hex'));
    const stamped = runCli(['sign', '--secret', 'ctcs_secret', '--timestamp', '1767225600'], {}, body);
    expect(await stamped.exited).toBe(0);
    expect(stamped.stdout().trim()).toBe(
      createHmac('sha256', 'ctcs_secret').update(`1767225600.${body}`).digest('hex'),
    );
  });

  it('org create refuses a name of spaces with exit 2, before opening any database', async () => {
    const dataDir = tempDir();
    const refused = runCli(
      ['org', 'create', '--name', '   ', '--email', 'blank@example.com', '--password', 'correct horse'],
      { SWITCHBOARD_DATA_DIR: dataDir },
    );
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toContain('--name must contain a character other than spaces');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('org create prints JSON with an apiKey; call signs and sends a click-to-call', async () => {
    const dataDir = tempDir();
    const created = runCli(
      ['org', 'create', '--name', 'CLI Co', '--email', 'cli@example.com', '--password', 'correct horse'],
      {
        SWITCHBOARD_DATA_DIR: dataDir,
      },
    );
    expect(await created.exited).toBe(0);
    const org = JSON.parse(created.stdout());
    expect(org.apiKey).toMatch(/^sb_live_/);

    const server = await startServerProcess({ SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_SIGNUP: 'closed' });
    started.push(server);
    const auth = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };
    const agent = await json(`${server.url}/v1/agents`, {
      method: 'POST',
      headers: auth,
      // The CLI signs with signature-timestamp, so an agent that requires it takes its calls.
      body: JSON.stringify({ name: 'CLI agent', requireSignatureTimestamp: true }),
    });
    const creds = await json(`${server.url}/v1/agents/${agent.body.id}/credentials`, { headers: auth });
    const call = runCli([
      'call',
      '--url',
      server.url,
      '--token',
      creds.body.apiToken,
      '--secret',
      creds.body.apiSecret,
      '--phone',
      '+14155550123',
      '--var',
      'name=Ada',
    ]);
    expect(await call.exited).toBe(0);
    expect(JSON.parse(call.stdout())).toMatchObject({ success: true, status: 'queued' });
    const refused = runCli([
      'call',
      '--url',
      server.url,
      '--token',
      creds.body.apiToken,
      '--secret',
      'wrong',
      '--phone',
      '+14155550123',
    ]);
    expect(await refused.exited).toBe(1);
    expect(JSON.parse(refused.stdout())).toMatchObject({ success: false, code: 'ctc:006' });
    await server.stop();
    // The server is gone: unreachable is 4. The same email again, on the data dir: a conflict is 3.
    const unreachable = runCli(['call', '--url', server.url, '--token', 't', '--phone', '+14155550123']);
    expect(await unreachable.exited).toBe(4);
    expect(unreachable.stderr()).toContain('could not reach');
    const again = runCli(
      ['org', 'create', '--name', 'CLI Co', '--email', 'cli@example.com', '--password', 'correct horse'],
      { SWITCHBOARD_DATA_DIR: dataDir },
    );
    expect(await again.exited).toBe(3);
  }, 90_000);

  it('has --help for every command, with the exit codes, and answers usage errors with 2', async () => {
    // Each run starts its own process: started together, checked in turn.
    const helps = [
      [],
      ['serve'],
      ['migrate'],
      ['org'],
      ['org', 'create'],
      ['stats'],
      ['stats', 'rollup'],
      ['sign'],
      ['call'],
    ].map((command) => ({
      command,
      run: runCli([...command, '--help']),
    }));
    const usages = [
      ['nope'],
      ['call', '--token', 't'],
      ['sign'],
      ['org', 'create', '--name', 'x', '--email', 'e@x.io', '--password', 'short'],
      ['org', 'create', '--name', 'x', '--email', 'e@x.io', '--password', 'Password123'],
    ].map((usage) => ({ usage, run: runCli(usage) }));
    for (const { command, run } of helps) {
      const name = command.join(' ');
      expect(await run.exited, name).toBe(0);
      expect(run.stdout(), name).toContain(`Usage: switchboard${name ? ` ${name}` : ''}`);
      expect(run.stdout(), name).toContain('2  usage: an unknown command or option');
    }
    for (const { usage, run } of usages) {
      expect(await run.exited, usage.join(' ')).toBe(2);
      expect(run.stderr(), usage.join(' ')).toMatch(/\S/);
    }
    // The sign-up's password rules, said the same way.
    expect(usages.at(-2)?.run.stderr()).toContain('--password must be at least 10 characters');
    expect(usages.at(-1)?.run.stderr()).toContain('--password is one of the most common passwords');
  });
});
