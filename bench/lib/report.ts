/** One line of the results table. */
export interface Row {
  name: string;
  value: number | null;
  /** `ms/s`: CPU time a second, as an idle process's. */
  unit: 'req/s' | 'MB' | 's' | 'ms' | 'ms/s';
  /** For throughput: this figure over the floor's. */
  ratio?: number;
  p50Ms?: number;
  p99Ms?: number;
  /** CPU time the server process used per response during the load, in µs. */
  serverCpuUs?: number;
  /** CPU time the PostgreSQL processes used per response during the load, in µs. */
  postgresCpuUs?: number;
  target?: { text: string; pass: boolean };
  /** Statuses seen, anything unusual. */
  note?: string;
}

export interface BenchmarkResult {
  name: string;
  rows: Row[];
  /** Further findings printed under the table (query counts, drain times, …). */
  notes: string[];
  /** Parts that could not be measured, with the reason. */
  failures: string[];
}

export interface Benchmark {
  name: string;
  /**
   * Run only when named (`npm run bench -- ten-million`), not by a bare `npm run bench`: a benchmark
   * that takes most of an hour the first time (filling ten million calls).
   */
  onlyWhenNamed?: boolean;
  run(): Promise<BenchmarkResult>;
}

function formatValue(row: Row): string {
  if (row.value === null || Number.isNaN(row.value)) return 'n/a';
  if (row.unit === 'req/s') return `${Math.round(row.value).toLocaleString('en-US')} req/s`;
  if (row.unit === 'MB') return `${row.value.toFixed(0)} MB`;
  if (row.unit === 'ms') return `${row.value.toFixed(2)} ms`;
  if (row.unit === 'ms/s') return `${row.value.toFixed(1)} ms/s`;
  return `${row.value.toFixed(2)} s`;
}

const ms = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '' : `${value.toFixed(2)} ms`);

const us = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '' : `${Math.round(value).toLocaleString('en-US')} µs`;

/** A Markdown table: readable in a terminal and pasted as is into docs/benchmarks.md. */
export function formatTable(results: BenchmarkResult[]): string {
  const header = [
    'benchmark',
    'measurement',
    'result',
    '× floor',
    'p50',
    'p99',
    'server CPU/resp',
    'postgres CPU/resp',
    'target',
    'pass',
  ];
  const lines: string[][] = [];
  for (const result of results) {
    for (const row of result.rows) {
      lines.push([
        result.name,
        row.name,
        formatValue(row),
        row.ratio === undefined ? '' : `${row.ratio.toFixed(2)}×`,
        ms(row.p50Ms),
        ms(row.p99Ms),
        us(row.serverCpuUs),
        us(row.postgresCpuUs),
        row.target?.text ?? '',
        row.target ? (row.target.pass ? 'PASS' : 'FAIL') : '',
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i]!.length)));
  const render = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [render(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(render)].join('\n');
}

/** The table, the notes under it, failures and the targets missed. */
export function formatResults(results: BenchmarkResult[]): string {
  const lines = [formatTable(results), ''];
  for (const result of results) {
    for (const note of result.notes) lines.push(`- [${result.name}] ${note}`);
    for (const failure of result.failures) lines.push(`- [${result.name}] FAILED, not measured: ${failure}`);
  }
  const missed = results.flatMap((r) => r.rows.filter((row) => row.target && !row.target.pass).map((row) => row.name));
  const verdict = missed.length === 0 ? 'Every target measured was met.' : `Targets missed: ${missed.join('; ')}.`;
  // A part that failed measured nothing: the verdict must not read as a pass without it.
  const failed = results.reduce((count, result) => count + result.failures.length, 0);
  lines.push(
    '',
    failed === 0
      ? verdict
      : `${verdict} ${failed === 1 ? 'One part was' : `${failed} parts were`} not measured (FAILED above).`,
  );
  return `${lines.join('\n')}\n`;
}
