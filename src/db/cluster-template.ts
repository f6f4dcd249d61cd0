import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';

/**
 * The files of a new cluster with the committed migrations applied, packed by the build
 * (scripts/build.mjs) into dist/ with the installed PGlite: a new embedded data dir is unpacked from
 * them, about three times faster than running `initdb` again (decision 0064), and a process that
 * starts on it runs no DDL, which would leave its database's memory larger for good (decision 0083).
 * Found from src/ or dist/ alike. Beside it, `<file>.version` names the PGlite that made it and the
 * migrations applied to it; made by another PGlite or with other migrations, it is not used.
 */
export const CLUSTER_TEMPLATE = fileURLToPath(new URL('../../dist/pglite-cluster.tar.gz', import.meta.url));

/** The installed PGlite's version (its package does not export its package.json: read from its folder). */
export function installedPgliteVersion(): string | undefined {
  try {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const folder = entry.slice(0, entry.lastIndexOf(`${path.sep}dist${path.sep}`));
    const version = (JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { version?: unknown })
      .version;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The committed migrations (drizzle/), found from this file in src/ or dist/. */
const MIGRATIONS_DIR = fileURLToPath(new URL('../../drizzle/', import.meta.url));

/** A digest of the committed migrations: their journal and every file it names. */
export function migrationsDigest(): string {
  const journal = readFileSync(path.join(MIGRATIONS_DIR, 'meta', '_journal.json'));
  const hash = createHash('sha256').update(journal);
  for (const { tag } of (JSON.parse(journal.toString('utf8')) as { entries: { tag: string }[] }).entries) {
    hash.update(readFileSync(path.join(MIGRATIONS_DIR, `${path.basename(tag)}.sql`)));
  }
  return hash.digest('hex');
}

/** What `<file>.version` says of a template the installed PGlite made with the committed migrations. */
function templateStamp(): string | undefined {
  const version = installedPgliteVersion();
  return version && `${version} migrations ${migrationsDigest()}`;
}

/**
 * `file` if it is a template made by the installed PGlite with the committed migrations; otherwise
 * undefined (a new cluster runs `initdb`, and the server migrates it).
 */
export function usableClusterTemplate(file: string = CLUSTER_TEMPLATE): string | undefined {
  try {
    const madeBy = readFileSync(`${file}.version`, 'utf8').trim();
    return madeBy !== '' && madeBy === templateStamp() && existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes the template with the installed PGlite: a cluster in memory, migrated, packed as gzipped tar.
 * Written beside `file` and renamed into place, the version last, so an interrupted build leaves no
 * template that looks usable.
 */
export async function writeClusterTemplate(file: string = CLUSTER_TEMPLATE): Promise<void> {
  const stamp = templateStamp();
  if (!stamp) throw new Error('cannot tell which PGlite is installed');
  // Loaded here only: a process that unpacks the template has no use for Drizzle.
  const [{ PGlite }, { openPglite }, { migrate }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('./client.js'),
    import('./migrate.js'),
  ]);
  const cluster = await PGlite.create();
  const database = openPglite(cluster);
  try {
    await migrate(database.db);
    const packed = Buffer.from(await (await cluster.dumpDataDir('gzip')).arrayBuffer());
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.partial`, packed);
    renameSync(`${file}.partial`, file);
    writeFileSync(`${file}.version`, `${stamp}\n`);
  } finally {
    await database.close();
  }
}

const BLOCK = 512;

/** A tar header's text field, up to its first NUL. */
function field(header: Buffer, start: number, length: number): string {
  const text = header.subarray(start, start + length).toString('utf8');
  const end = text.indexOf('\0');
  return end === -1 ? text : text.slice(0, end);
}

/** Where an entry's name puts it under `dir`; a name that would leave `dir` is refused. */
function inside(dir: string, name: string): string {
  const relative = path.posix.normalize(name).replace(/^\/+/, '');
  if (relative === '' || relative === '.' || relative.startsWith('../') || relative === '..') {
    throw new Error(`the template names a path outside its cluster: ${JSON.stringify(name)}`);
  }
  return path.join(dir, ...relative.split('/'));
}

/**
 * Unpacks the template (gzipped tar, as PGlite's `dumpDataDir` writes it) into `dir`, streaming: a
 * chunk in memory at a time, whatever the files' sizes (its WAL segment is 16 MB). Run by a child
 * process (src/db/embedded.ts). Only directories and regular files are expected; anything else, or
 * a path out of `dir`, is refused.
 */
export async function unpackClusterTemplate(file: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let buffered: Buffer = Buffer.alloc(0);
  /** The file being written: its descriptor, the bytes still to come, then the padding to its block's end. */
  let entry: { fd: number; left: number; padding: number } | undefined;
  let ended = false;
  try {
    for await (const chunk of createReadStream(file).pipe(createGunzip())) {
      buffered = buffered.length === 0 ? (chunk as Buffer) : Buffer.concat([buffered, chunk as Buffer]);
      while (!ended) {
        if (entry) {
          const data = Math.min(entry.left, buffered.length);
          if (data > 0) writeSync(entry.fd, buffered, 0, data);
          entry.left -= data;
          const padding = Math.min(entry.padding, buffered.length - data);
          entry.padding -= padding;
          buffered = buffered.subarray(data + padding);
          if (entry.left > 0 || entry.padding > 0) break;
          closeSync(entry.fd);
          entry = undefined;
        }
        if (buffered.length < BLOCK) break;
        const header = buffered.subarray(0, BLOCK);
        buffered = buffered.subarray(BLOCK);
        if (header.every((byte) => byte === 0)) {
          ended = true;
          break;
        }
        const ustar = field(header, 257, 6).startsWith('ustar');
        const name = [ustar ? field(header, 345, 155) : '', field(header, 0, 100)].filter(Boolean).join('/');
        const mode = Number.parseInt(field(header, 100, 8).trim() || '600', 8) & 0o777;
        const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
        const type = field(header, 156, 1) || '0';
        const target = inside(dir, name);
        if (type === '5') {
          mkdirSync(target, { recursive: true, mode });
        } else if (type === '0' && Number.isSafeInteger(size) && size >= 0) {
          mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
          entry = { fd: openSync(target, 'wx', mode), left: size, padding: (BLOCK - (size % BLOCK)) % BLOCK };
        } else {
          throw new Error(`the template holds an entry that is not a file or a directory: ${JSON.stringify(name)}`);
        }
      }
    }
    if (entry || !ended) throw new Error('the template ends before its last entry does');
  } finally {
    if (entry) closeSync(entry.fd);
  }
}
