/**
 * `npm run bench`: builds the server (`npm run build`, skipped with --no-build), runs every
 * benchmark in bench/ in turn and prints one table of results, ratios and targets.
 * `npm run bench -- flood` (names of benchmarks) runs only those. `ten-million` runs only when named
 * (its first run fills a database with ten million calls, about 40 minutes on two cores).
 * `--json <file>` also writes the results as JSON. Exits 1 if a benchmark failed (not for a missed target).
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { campaigns } from './campaigns.js';
import { claimBacklog } from './claim-backlog.js';
import { clickToCall } from './click-to-call.js';
import { flood } from './flood.js';
import { killAll, killChildrenOnExit, ROOT } from './lib/children.js';
import { type Benchmark, type BenchmarkResult, formatResults } from './lib/report.js';
import { providerTraffic } from './provider-traffic.js';
import { retention } from './retention.js';
import { scaleOut } from './scale-out.js';
import { speedToLead } from './speed-to-lead.js';
import { stats } from './stats.js';
import { tenMillion } from './ten-million.js';
import { toolCalls } from './tool-calls.js';
import { webhooks } from './webhooks.js';

const BENCHMARKS: Benchmark[] = [
  clickToCall,
  speedToLead,
  providerTraffic,
  toolCalls,
  webhooks,
  claimBacklog,
  flood,
  stats,
  campaigns,
  retention,
  scaleOut,
  tenMillion,
];

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonFile = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
const named = args.filter((arg, i) => !arg.startsWith('--') && (jsonAt < 0 || i !== jsonAt + 1));
const unknown = named.filter((name) => !BENCHMARKS.some((b) => b.name === name));
if (unknown.length > 0) {
  process.stderr.write(
    `[bench] no benchmark named ${unknown.join(', ')} (${BENCHMARKS.map((b) => b.name).join(', ')})\n`,
  );
  process.exit(1);
}
const selected =
  named.length > 0 ? BENCHMARKS.filter((b) => named.includes(b.name)) : BENCHMARKS.filter((b) => !b.onlyWhenNamed);

killChildrenOnExit();
const started = performance.now();
const sourceVersion = describeSource();
if (!args.includes('--no-build')) {
  process.stderr.write('[bench] npm run build\n');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) {
    process.stderr.write('[bench] the build failed; nothing was measured\n');
    process.exit(1);
  }
}

/** Which code was measured: the commit, and whether src/ differed from it when it was built. */
function describeSource(): string {
  const git = (...gitArgs: string[]) => spawnSync('git', gitArgs, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  const commit = git('log', '-1', '--format=%h %s');
  if (!commit) return 'source: not a git checkout';
  const dirty = git('status', '--porcelain', '--', 'src', 'drizzle', 'package.json', 'package-lock.json');
  return `source: commit ${commit}${dirty ? ' (with uncommitted changes to src/, drizzle/ or package files)' : ''}`;
}
const results: BenchmarkResult[] = [];
let failed = false;
for (const benchmark of selected) {
  try {
    results.push(await benchmark.run());
  } catch (error) {
    failed = true;
    process.stderr.write(`[bench] ${benchmark.name} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  } finally {
    killAll();
  }
}

const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
process.stdout.write(`\n${machine}\n${sourceVersion}\n\n${formatResults(results)}`);
process.stdout.write(`(${((performance.now() - started) / 1000).toFixed(0)} s in all)\n`);
if (jsonFile) {
  const report = { machine, source: sourceVersion, date: new Date().toISOString(), results };
  await writeFile(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
}
process.exit(failed || results.some((result) => result.failures.length > 0) ? 1 : 0);
