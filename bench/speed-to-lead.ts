/**
 * Speed to lead (docs/benchmarks.md, issue 20): how long from a click-to-call request leaving the
 * customer's backend to the provider's create-call request (`POST /call`) reaching Vapi, the
 * moment the lead's phone can start ringing. A server started as the README starts it, an agent on
 * a local fake Vapi (bench/lib/fake-vapi.ts, in this process), default configuration but a rate
 * limit that never refuses; signed requests with a new number each, 100 a second on a fixed
 * schedule (open loop) for 2 s of warm-up and 10 s measured. Both times are taken on this process's
 * clock: the request's when it is handed to the HTTP client, the fake's when the `POST /call` body
 * has arrived. On PostgreSQL and on PGlite.
 *
 * Run alone: npx tsx bench/speed-to-lead.ts (after npm run build), or npm run bench -- speed-to-lead.
 */
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { killAll, runIfMain, sleep } from './lib/children.js';
import { benchEngines, ENGINE_LABEL, type Engine } from './lib/database.js';
import { startBenchFakeVapi } from './lib/fake-vapi.js';
import { othersNote, percentile, sendAtPace, startCpuWindow } from './lib/paced.js';
import { validPhoneNumbers } from './lib/phones.js';
import { createVapiAgent, serverSettings } from './lib/provider-setup.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import { signup, startSwitchboard } from './lib/switchboard.js';

// BENCH_LEAD_PER_SECOND changes the pace (to look for where the latency starts to grow); the reference is 100.
const PER_SECOND = Number(process.env.BENCH_LEAD_PER_SECOND ?? 100);
const WARMUP_SECONDS = 2;
const MEASURED_SECONDS = 10;
const TARGET_P99_MS = 50;
const FROM_NUMBER = '+14155550100';

const log = (message: string) => process.stderr.write(`[speed-to-lead] ${message}\n`);

async function measureEngine(engine: Engine, rows: Row[]): Promise<void> {
  const label = ENGINE_LABEL[engine];
  const { settings, drop } = await serverSettings(engine, 'lead');
  const vapi = await startBenchFakeVapi(FROM_NUMBER);
  try {
    const server = await startSwitchboard(`switchboard (${label})`, settings);
    const pool = new Pool(server.origin, { connections: 32, headersTimeout: 10_000, bodyTimeout: 10_000 });
    try {
      const apiKey = await signup(server.origin);
      const agent = await createVapiAgent(server.origin, apiKey, vapi, { fromNumber: FROM_NUMBER });
      const total = PER_SECOND * (WARMUP_SECONDS + MEASURED_SECONDS);
      const phones = validPhoneNumbers(total, engine === 'postgresql' ? 0 : 10_000_000);
      const requests = phones.map((phone) => {
        const body = JSON.stringify({ phone, variables: { name: 'Ada' } });
        return {
          phone,
          body,
          headers: {
            'content-type': 'application/json',
            'api-key': agent.apiToken,
            signature: createHmac('sha256', agent.apiSecret).update(body).digest('hex'),
          },
        };
      });
      const sentAt = new Map<string, number>();
      const latencies: number[] = [];
      /** When each 200 came back: the answer does not wait for the provider (decision 0009). */
      const answered: number[] = [];
      let measuring = false;
      vapi.onCall = (call) => {
        const at = sentAt.get(call.to);
        if (measuring && at !== undefined) latencies.push(call.arrivedAt - at);
      };
      const statuses: Record<string, number> = {};
      let offset = 0;
      const send = async (i: number) => {
        const request = requests[offset + i]!;
        sentAt.set(request.phone, performance.now());
        const response = await pool
          .request({ path: '/api/click-to-call', method: 'POST', headers: request.headers, body: request.body })
          .catch((error: Error) => ({ statusCode: `error:${error.name}`, body: undefined }));
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
        if (measuring && response.statusCode === 200) answered.push(performance.now() - sentAt.get(request.phone)!);
        await response.body?.dump();
      };
      // What the server spends with no request (its background jobs): part of the CPU per call at a slow pace.
      const stopIdle = await startCpuWindow(server.child.pid);
      await sleep(3000);
      const idle = await stopIdle();
      log(`${label}: warm-up, ${PER_SECOND}/s for ${WARMUP_SECONDS} s`);
      offset += await sendAtPace(PER_SECOND, WARMUP_SECONDS, send);
      const placedBefore = vapi.calls.length;
      for (const key of Object.keys(statuses)) delete statuses[key];
      log(`${label}: ${PER_SECOND}/s for ${MEASURED_SECONDS} s`);
      measuring = true;
      const stop = await startCpuWindow(server.child.pid);
      const sent = await sendAtPace(PER_SECOND, MEASURED_SECONDS, send);
      // The last requests' POST /call come after their 200.
      const since = performance.now();
      while (vapi.calls.length - placedBefore < sent && performance.now() - since < 5000)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const cpu = await stop();
      measuring = false;
      const sorted = latencies.sort((a, b) => a - b);
      const p50 = percentile(sorted, 0.5);
      const p99 = percentile(sorted, 0.99);
      const answeredSorted = answered.sort((a, b) => a - b);
      const answers = Object.entries(statuses)
        .map(([status, n]) => `${status}×${n}`)
        .join(' ');
      rows.push({
        name: `click-to-call request sent → POST /call at Vapi, ${PER_SECOND}/s (${label})`,
        value: p99,
        unit: 'ms',
        p50Ms: p50,
        p99Ms: p99,
        serverCpuUs: (cpu.serverMs * 1000) / Math.max(1, sent),
        postgresCpuUs: engine === 'postgresql' ? (cpu.postgresMs * 1000) / Math.max(1, sent) : undefined,
        target: { text: `p99 ≤ ${TARGET_P99_MS} ms`, pass: p99 <= TARGET_P99_MS },
        note: `${sent} sent (${answers}), ${sorted.length} reached Vapi; p90 ${percentile(sorted, 0.9).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms; the 200 itself came back after p50 ${percentile(answeredSorted, 0.5).toFixed(1)} ms, p99 ${percentile(answeredSorted, 0.99).toFixed(1)} ms. Idle, the server used ${((idle.serverMs / idle.elapsedMs) * 1000).toFixed(0)} ms of CPU a second. ${othersNote(cpu.othersPct)}`,
      });
    } finally {
      await pool.close();
      await server.child.stop(15_000);
    }
  } finally {
    await vapi.close();
    await drop();
  }
}

export const speedToLead: Benchmark = {
  name: 'speed-to-lead',
  async run(): Promise<BenchmarkResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    for (const engine of benchEngines()) {
      try {
        await measureEngine(engine, rows);
      } catch (error) {
        failures.push(`${ENGINE_LABEL[engine]}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        killAll();
      }
    }
    const statuses = rows.filter((row) => row.note).map((row) => `${row.name}: ${row.note}`);
    return { name: 'speed-to-lead', rows, notes: [...statuses, ...notes], failures };
  },
};

await runIfMain(import.meta.url, speedToLead);
