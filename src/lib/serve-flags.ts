/**
 * The Node flags `switchboard serve` runs with. V8 reads these only from the command line (set at
 * run time they are ignored), so bin/switchboard.js re-executes itself with them where Node can
 * (`process.execve`, Node 22.15 and later on Unix), and the benchmarks start the server with them.
 *  - On the embedded database, `--liftoff-only`: PGlite's PostgreSQL compiled by V8's baseline
 *    WebAssembly compiler alone, ~50 MB less at idle (decisions 0010 and 0060).
 *  - On PostgreSQL, `--max-semi-space-size=32`: a young generation of up to 64 MB rather than 32 MB,
 *    so the large bodies of provider reports die young in fewer collections (decision 0063).
 */
export function serveNodeFlags(env: { DATABASE_URL?: string | undefined }): string[] {
  return env.DATABASE_URL ? ['--max-semi-space-size=32'] : ['--liftoff-only'];
}

/**
 * What `switchboard serve` adds to its environment when it re-executes itself (glibc reads these
 * only when a process starts). On the embedded database, `MALLOC_ARENA_MAX=2`: at most two malloc
 * arenas for V8's and libuv's threads rather than glibc's eight a core, whose freed memory an idle
 * process keeps (decision 0072: about 5 MB less at idle on Node 24). The operator's own value is kept.
 */
export function serveEnvironment(env: {
  DATABASE_URL?: string | undefined;
  MALLOC_ARENA_MAX?: string | undefined;
}): Record<string, string> {
  return env.DATABASE_URL || env.MALLOC_ARENA_MAX !== undefined ? {} : { MALLOC_ARENA_MAX: '2' };
}

/**
 * The flag's name as V8 reads it: `--max_semi_space_size=8` and `--max-semi-space-size` are one flag,
 * and so are a boolean flag and its `--no-` form.
 */
const flagName = (flag: string): string => (flag.split('=')[0] ?? '').replaceAll('_', '-').replace(/^--no-/, '--');

/**
 * The flags of `wanted` that Node was not started with, by name, on its command line or in
 * NODE_OPTIONS: an operator's own value (`NODE_OPTIONS=--max-semi-space-size=16`) is kept.
 */
export function missingNodeFlags(wanted: string[], execArgv: string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean).map(flagName));
  return wanted.filter((flag) => !given.has(flagName(flag)));
}
