/**
 * Issue 15 item 1, reproduced as an attacker would (docs/decisions/0027-bounded-call-records.md):
 * an agent whose simulator scenario has turns of 800 `{{p}}` placeholders, and click-to-calls whose
 * variable `p` is long. Starts `node bin/switchboard.js serve` (built dist/, embedded database, a
 * fresh data dir) of the checkout at BENCH_ROOT (default: this one), sends the calls, then for
 * BENCH_SECONDS watches the server: its RSS (peak VmHWM), GET /healthz latency, the calls' states,
 * the size of each call record (GET /v1/calls/:id) and how often it logged "could not record".
 * The server is killed early when its RSS passes BENCH_RSS_LIMIT_MB.
 *
 *   npm run build && npx tsx bench/template-amplification.ts
 *   BENCH_ROOT=/tmp/before npx tsx bench/template-amplification.ts      # another checkout, built
 *
 * Settings (env): BENCH_CALLS (10), BENCH_TURNS (10 turns of 800 {{p}} each), BENCH_VALUE_LENGTH
 * (60000; 4096 is the largest value accepted since 0027), BENCH_SECONDS (90), BENCH_RSS_LIMIT_MB (7000).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort, killChildrenOnExit, ROOT, sleep, startChild, waitUntilHealthy } from './lib/children.js';

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CALLS = setting('BENCH_CALLS', 10);
const TURNS = setting('BENCH_TURNS', 10);
const VALUE_LENGTH = setting('BENCH_VALUE_LENGTH', 60_000);
const SECONDS = setting('BENCH_SECONDS', 90);
const RSS_LIMIT_MB = setting('BENCH_RSS_LIMIT_MB', 7000);
const CHECKOUT = path.resolve(process.env.BENCH_ROOT ?? ROOT);

async function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

async function request(
  origin: string,
  method: string,
  route: string,
  options: { body?: unknown; apiKey?: string; timeoutMs?: number } = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${origin}${route}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  return { status: response.status, text: await response.text() };
}

const percentile = (values: number[], p: number) =>
  values.length === 0
    ? null
    : [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];

async function main(): Promise<void> {
  killChildrenOnExit();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-amplification-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SWITCHBOARD_') && !name.startsWith('npm_') && name !== 'DATABASE_URL') env[name] = value;
  }
  const child = startChild(process.execPath, [path.join(CHECKOUT, 'bin/switchboard.js'), 'serve'], {
    label: 'switchboard',
    cwd: CHECKOUT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', SWITCHBOARD_DATA_DIR: dataDir },
  });
  let unrecorded = 0;
  let firstUnrecorded = '';
  child.process.stdout?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.includes('could not record') && !line.includes('could not be recorded')) continue;
      unrecorded++;
      if (!firstUnrecorded) firstUnrecorded = line.slice(0, 600);
    }
  });
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitUntilHealthy(`${origin}/healthz`, child, performance.now(), 120_000);
    const id = randomBytes(4).toString('hex');
    const signup = await request(origin, 'POST', '/v1/signup', {
      body: { organization: `Amp ${id}`, email: `amp-${id}@example.com`, password: 'correct horse battery staple' },
    });
    const { apiKey } = JSON.parse(signup.text) as { apiKey: string };
    const turnText = '{{p}}'.repeat(800);
    const agentAnswer = await request(origin, 'POST', '/v1/agents', {
      apiKey,
      body: {
        name: 'Amplifier',
        type: 'click_to_call',
        rateLimitPerMinute: null,
        simulator: { turns: Array.from({ length: TURNS }, () => ({ role: 'agent', text: turnText })) },
      },
    });
    if (agentAnswer.status !== 201) throw new Error(`create agent: ${agentAnswer.status} ${agentAnswer.text}`);
    const agent = JSON.parse(agentAnswer.text) as { id: string };
    const credentials = JSON.parse(
      (await request(origin, 'GET', `/v1/agents/${agent.id}/credentials`, { apiKey })).text,
    );
    const value = 'x'.repeat(VALUE_LENGTH);

    const startedAt = performance.now();
    const answers: string[] = [];
    const callIds: string[] = [];
    // All at once, as an attacker would send them.
    await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const raw = JSON.stringify({ phone: `+1415555${String(1000 + i).padStart(4, '0')}`, variables: { p: value } });
        let status = 0;
        let text = '';
        try {
          const response = await fetch(`${origin}/api/click-to-call`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'api-key': credentials.apiToken,
              signature: createHmac('sha256', credentials.apiSecret).update(raw).digest('hex'),
            },
            body: raw,
            signal: AbortSignal.timeout(60_000),
          });
          status = response.status;
          text = await response.text();
        } catch (error) {
          text = (error as Error).message;
        }
        answers.push(status === 200 ? '200' : `${status} ${/"code":"([^"]+)"/.exec(text)?.[1] ?? text.slice(0, 80)}`);
        const callId = /"callId":"([^"]+)"/.exec(text)?.[1];
        if (callId) callIds.push(callId);
      }),
    );

    const healthMs: number[] = [];
    let healthFailures = 0;
    let maxRssMb = 0;
    let stoppedEarly = '';
    let allEnded = false;
    while (performance.now() - startedAt < SECONDS * 1000) {
      const rss = await procStatusMb(child.pid, 'VmRSS');
      if (rss === null) {
        stoppedEarly = 'the server exited';
        break;
      }
      maxRssMb = Math.max(maxRssMb, rss);
      if (rss > RSS_LIMIT_MB) {
        stoppedEarly = `RSS ${rss} MB passed the ${RSS_LIMIT_MB} MB limit`;
        break;
      }
      const since = performance.now();
      try {
        const health = await request(origin, 'GET', '/healthz', { timeoutMs: 5000 });
        if (health.status === 200) healthMs.push(performance.now() - since);
        else healthFailures++;
      } catch {
        healthFailures++;
      }
      if (!allEnded && healthMs.length % 4 === 0 && callIds.length > 0) {
        const states = await Promise.all(
          callIds.map((callId) =>
            request(origin, 'GET', `/v1/calls/${callId}`, { apiKey, timeoutMs: 5000 })
              .then((r) => /"status":"([^"]+)"/.exec(r.text)?.[1] ?? '?')
              .catch(() => '?'),
          ),
        );
        allEnded = states.every((s) => s === 'ended');
      }
      // Once every call has ended, a few more seconds show the memory the server keeps.
      if (allEnded && performance.now() - startedAt > 15_000) break;
      await sleep(500);
    }
    const elapsedS = Math.round((performance.now() - startedAt) / 1000);
    const peakMb = await procStatusMb(child.pid, 'VmHWM');
    const records = stoppedEarly
      ? []
      : await Promise.all(
          callIds.map(async (callId) => {
            try {
              const record = await request(origin, 'GET', `/v1/calls/${callId}`, { apiKey, timeoutMs: 30_000 });
              const call = JSON.parse(record.text) as { status: string; outcome: string; endedReason: string };
              return `${call.status}/${call.outcome}/${call.endedReason} ${Buffer.byteLength(record.text)} B`;
            } catch (error) {
              return `unreadable (${(error as Error).message})`;
            }
          }),
        );
    const summary = {
      checkout: CHECKOUT,
      calls: CALLS,
      turnsPerCall: TURNS,
      placeholdersPerTurn: 800,
      valueLength: VALUE_LENGTH,
      answers: [...new Set(answers)].map((a) => `${answers.filter((x) => x === a).length}× ${a}`),
      watchedSeconds: elapsedS,
      stoppedEarly: stoppedEarly || null,
      peakRssMb: peakMb ?? maxRssMb,
      maxSampledRssMb: maxRssMb,
      healthz: {
        answered: healthMs.length,
        failedOrTimedOut5s: healthFailures,
        p50Ms: percentile(healthMs, 0.5)?.toFixed(1) ?? null,
        p99Ms: percentile(healthMs, 0.99)?.toFixed(1) ?? null,
        maxMs: healthMs.length ? Math.max(...healthMs).toFixed(1) : null,
      },
      callRecords: [...new Set(records)].map((r) => `${records.filter((x) => x === r).length}× ${r}`),
      couldNotRecordLines: unrecorded,
      firstCouldNotRecordLine: firstUnrecorded || null,
    };
    console.log(JSON.stringify(summary, null, 2));
  } finally {
    // SIGKILL: a server in the state the attack leaves it in may not stop within any grace.
    await child.stop(2000);
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
