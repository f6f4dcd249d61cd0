/**
 * Table and index sizes per million calls in the embedded database (docs/benchmarks.md#ten-million-calls):
 * a new PGlite data directory, opened as the server opens it and migrated, filled with
 * BENCH_TEN_MILLION_PGLITE_CALLS calls (default 100,000) by the same statements as bench/ten-million.ts,
 * then measured with `du` and the database's own size functions. The ids of organizations, agents and
 * integrations are made up: the fill writes no foreign-key rows it does not need (replica role).
 *
 * Run: npx tsx bench/ten-million-pglite.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPglite } from '../src/db/client.js';
import { openEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import {
  bind,
  FILL_ATTEMPTS,
  FILL_CALLS,
  FILL_DELIVERIES,
  FILL_TOOLS,
  packFull,
  restoreOptions,
  transcripts,
} from './ten-million.js';

const CALLS = Number(process.env.BENCH_TEN_MILLION_PGLITE_CALLS ?? 100_000);
const CHUNK = 50_000;

const dir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-pglite-sizes-'));
try {
  const client = await openEmbeddedPostgres(dir);
  const database = openPglite(client);
  await migrate(database.db);
  const du = () => Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]) * 1024;
  const before = du();
  const texts = transcripts();
  const organizations = Array.from({ length: 100 }, (_, n) => `org_bench${String(n).padStart(4, '0')}`);
  const agents = Array.from({ length: 1000 }, (_, n) => `agt_bench${String(n).padStart(5, '0')}`);
  const integrations = agents.map((_, n) => `intg_bench${String(n).padStart(5, '0')}`);
  // Packed as the PostgreSQL fill packs it (bench/ten-million.ts, decisions 0068 and 0069).
  const tableOptions = await packFull(client);
  await client.query("set session_replication_role = 'replica'");
  const since = performance.now();
  for (let from = 1; from <= CALLS; from += CHUNK) {
    const to = Math.min(CALLS, from + CHUNK - 1);
    const values = {
      orgs: organizations,
      agents,
      integrations,
      transcripts: texts,
      texts,
      from,
      to,
      total: CALLS,
      now: new Date().toISOString(),
    };
    for (const text of [FILL_CALLS, FILL_TOOLS, FILL_DELIVERIES, FILL_ATTEMPTS])
      await client.query(...bind(text, values));
    process.stderr.write(`[pglite-sizes] ${to} calls, ${((performance.now() - since) / 1000).toFixed(0)} s\n`);
  }
  await client.query("set session_replication_role = 'origin'");
  await restoreOptions(client, tableOptions);
  await client.query('vacuum analyze');
  await client.query('checkpoint');
  const perMillion = (bytes: number) => `${((bytes / 1024 / 1024) * (1_000_000 / CALLS)).toFixed(0)} MB`;
  const sizes = await client.query<{ table: string; heap: string; indexes: string }>(
    `select relname as table, pg_table_size(oid)::text as heap, pg_indexes_size(oid)::text as indexes from pg_class
     where relname in ('calls', 'tool_invocations', 'deliveries', 'delivery_attempts') order by relname`,
  );
  const lines = sizes.rows.map(
    (r) => `${r.table} ${perMillion(Number(r.heap))} + indexes ${perMillion(Number(r.indexes))}`,
  );
  const after = du();
  console.log(
    `PGlite, ${CALLS.toLocaleString('en-US')} calls filled in ${((performance.now() - since) / 1000).toFixed(0)} s; per million calls: ${lines.join('; ')}; data directory grew ${perMillion(after - before)} (du: ${(after / 1024 / 1024).toFixed(0)} MB in all, ${(before / 1024 / 1024).toFixed(0)} MB empty and migrated)`,
  );
  await database.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
