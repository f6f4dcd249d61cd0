import { execFile } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { CLUSTER_TEMPLATE, usableClusterTemplate } from './cluster-template.js';

/**
 * PGlite's defaults suit a database server; embedded in one process, a small buffer pool keeps the
 * service's memory modest. PGlite touches every page of its pool at start, so the pool is resident
 * memory whether it is used or not; the operating system caches the data files anyway.
 *
 * PGlite runs one backend, but PostgreSQL sizes its shared memory for `max_connections` (100 by
 * default) and the replication senders: lock tables, process slots, the serializable transactions'
 * lists, 4 MB of a 12 MB shared segment. With five, one transaction still locks 1,731 new tables
 * with their keys before "out of shared memory" (measured), twelve times the ~140 relations a new
 * database's migrations lock in their one transaction. WAL buffers of 256 kB: the write-ahead log
 * is written through the file system either way (decision 0060). The tests open their databases
 * with the same parameters (decision 0076).
 */
export const START_PARAMS = [
  ...['--single', '-F', '-O', '-j'],
  ...['-c', 'search_path=public', '-c', 'exit_on_error=false', '-c', 'log_checkpoints=false'],
  ...['-c', 'max_worker_processes=0', '-c', 'max_parallel_workers=0', '-c', 'max_parallel_workers_per_gather=0'],
  ...['-c', 'io_method=sync', '-c', 'max_parallel_maintenance_workers=0'],
  ...['-c', 'shared_buffers=4MB', '-c', 'wal_buffers=256kB', '-c', 'temp_buffers=2MB'],
  ...['-c', 'max_connections=5', '-c', 'max_wal_senders=0', '-c', 'max_replication_slots=0'],
];

/** The build's `unpackClusterTemplate`, run by a child: the template exists only where the build made both. */
const UNPACKER = new URL('../../dist/db/cluster-template.js', import.meta.url).href;
const UNPACK =
  'const m = await import(process.argv[1]); await m.unpackClusterTemplate(process.argv[2], process.argv[3]);';

/**
 * Creates the cluster beside `dir` and renames it into place, so an interrupted creation leaves
 * nothing that looks like a database. From the build's template when there is one for the installed
 * PGlite (decision 0064): its files unpacked, under a second where `initdb` takes several. Else, or
 * if unpacking fails, by `initdb`. Both in a child process: creating a cluster grows the WebAssembly
 * heap by several hundred MB, a heap never shrinks, and the garbage collector returns a discarded
 * one only when it gets to it.
 */
async function createCluster(dir: string, template: string | undefined): Promise<void> {
  const creating = `${dir}.creating`;
  rmSync(creating, { recursive: true, force: true });
  if (template) {
    try {
      // In a child as well: streaming 40 MB through zlib left the server ~4 MB larger for good.
      await promisify(execFile)(process.execPath, ['--input-type=module', '-e', UNPACK, UNPACKER, template, creating], {
        timeout: 120_000,
      });
      renameSync(creating, dir);
      return;
    } catch {
      // A damaged template only costs the speed-up: the cluster is made the slow way.
      rmSync(creating, { recursive: true, force: true });
    }
  }
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script = 'require(process.argv[1]).PGlite.create(process.argv[2]).then((db) => db.close())';
  try {
    await promisify(execFile)(process.execPath, ['-e', script, pglite, creating], { timeout: 120_000 });
  } catch (error) {
    rmSync(creating, { recursive: true, force: true });
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`could not create the embedded database in ${dir}${stderr ? `: ${stderr}` : ''}`, {
      cause: error,
    });
  }
  renameSync(creating, dir);
}

/**
 * PGlite in `dir`, created there first if it is new (from `template` when given one made by the
 * installed PGlite; by default the build's). Its PostgreSQL is compiled by V8's baseline
 * WebAssembly compiler (Liftoff) alone: tiering hot functions up to optimised code costs about 40 MB
 * of resident memory (docs/benchmarks.md). The flag applies to WebAssembly compiled from here on.
 */
export async function openEmbeddedPostgres(
  dir: string,
  { template = CLUSTER_TEMPLATE }: { template?: string | null } = {},
): Promise<PGlite> {
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    await createCluster(dir, template === null ? undefined : usableClusterTemplate(template));
  }
  v8.setFlagsFromString('--liftoff-only');
  return PGlite.create(dir, { startParams: START_PARAMS });
}
