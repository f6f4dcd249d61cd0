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
 * Started, it keeps of PostgreSQL's installation only what a running database reads
 * (`releaseInstallBundle`).
 */
export async function openEmbeddedPostgres(
  dir: string,
  { template = CLUSTER_TEMPLATE }: { template?: string | null } = {},
): Promise<PGlite> {
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    await createCluster(dir, template === null ? undefined : usableClusterTemplate(template));
  }
  v8.setFlagsFromString('--liftoff-only');
  const db = await PGlite.create(dir, { startParams: START_PARAMS });
  releaseInstallBundle(db);
  return db;
}

/**
 * Files of PostgreSQL's installation that a running database of ours never reads: those only
 * `initdb` reads (the catalog's bootstrap, the SQL it runs, the sample configurations), the
 * extension build kit, replication's libraries, ICU's data (the cluster's collations are libc's),
 * the encoding conversions (client and server both speak UTF-8) and the text search dictionaries
 * (no statement of ours searches text). Time zones, their abbreviations and PL/pgSQL are kept.
 */
const UNREAD_INSTALL_FILES = [
  /^\/pglite\/share\/postgresql\/(postgres\.bki|[\w.]+\.sql|sql_features\.txt|errcodes\.txt|[\w.]+\.sample)$/,
  /^\/pglite\/share\/postgresql\/tsearch_data\//,
  /^\/pglite\/lib\/postgresql\/(pgxs\/.*|libpqwalreceiver\.so|pgoutput\.so|dict_snowball\.so|\w+_and_\w+\.so)$/,
  /^\/pglite\/icu\//,
];

/**
 * An in-memory file's node: Emscripten's MEMFS keeps a file's bytes as a Uint8Array in `contents`
 * (its first `usedBytes`). Not part of the FS interface: read and replaced here only when it is so.
 */
interface MemoryFileNode {
  contents?: unknown;
}

/**
 * PGlite unpacks PostgreSQL's installation (6 MB: time zones, ICU's data, initdb's files, libraries)
 * into an in-memory file system whose every file is a view of the one buffer it read the package
 * into, so the whole package stays resident for the life of the process. This keeps a copy of the
 * files PostgreSQL may still read, removes those it never will (`UNREAD_INSTALL_FILES`) and lets
 * the buffer go: about 5 MB less resident memory (decision 0081). The data dir is never touched.
 * Does nothing when the files are not laid out as this expects (another PGlite's). Returns how
 * many bytes of the package were released.
 */
export function releaseInstallBundle(db: PGlite): number {
  const { FS } = db.Module;
  const views: { path: string; node: MemoryFileNode; view: Uint8Array }[] = [];
  const visit = (dir: string) => {
    for (const name of FS.readdir(dir)) {
      if (name === '.' || name === '..') continue;
      const file = `${dir}/${name}`;
      if (file === PGlite.paths.PGDATA) continue;
      const { mode } = FS.lstat(file);
      if (FS.isDir(mode)) visit(file);
      else if (FS.isFile(mode)) {
        const node = FS.lookupPath(file, {}).node as MemoryFileNode;
        if (node.contents instanceof Uint8Array) views.push({ path: file, node, view: node.contents });
      }
    }
  };
  for (const root of [PGlite.paths.PG_ROOT, '/home']) if (FS.analyzePath(root).exists) visit(root);
  // The package's buffer, as a file every package holds shows it (once released, that file is a
  // buffer of its own). Let go only when the files found are the whole of it, so that no file is
  // left a view of a buffer that is gone.
  const bundle = views.find(({ path }) => path.endsWith('/timezonesets/Default'))?.view.buffer;
  if (!(bundle instanceof ArrayBuffer)) return 0;
  const packaged = views.filter(({ view }) => view.buffer === bundle);
  const bytes = packaged.reduce((sum, { view }) => sum + view.byteLength, 0);
  if (packaged.length < 2 || bytes !== bundle.byteLength) return 0;
  for (const { path: file, node, view } of packaged) {
    if (UNREAD_INSTALL_FILES.some((pattern) => pattern.test(file))) FS.unlink(file);
    // The file's own copy, the same length (MEMFS's `usedBytes` holds): what MEMFS itself makes of a
    // file written without handing it the buffer.
    else node.contents = view.slice();
  }
  const released = bundle.byteLength;
  // Detached, the buffer's memory goes with the clone, which nothing keeps; PGlite's own reference
  // to it (kept for its loader) now holds an empty buffer.
  structuredClone(bundle, { transfer: [bundle] });
  return released;
}
