import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

/** Whether process `pid` is alive (a signal 0 reaches it, or it is another user's). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Clears the group and other permission bits of `root` and everything under it (symbolic links
 * are left): the data directory holds the master key and the database's files, which only the
 * user the service runs as may read (decision 0030). PGlite writes a new cluster's files with the
 * modes of its bundled image (0666) and some at every start with its own (pg_internal.init,
 * 0644), whatever the umask, so the server calls this once the database is open: ~1,000 files,
 * 15–45 ms. Until then the directory itself, 0700, keeps everyone else out.
 */
export function removeGroupAndOtherAccess(root: string): void {
  // The root is followed if it is a link (a data dir may be one); links inside are left alone.
  const stats = statSync(root);
  if (stats.mode & 0o077) chmodSync(root, stats.mode & 0o7700);
  if (!stats.isDirectory()) return;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const file = path.join(root, entry.name);
    if (entry.isDirectory()) removeGroupAndOtherAccess(file);
    else if (entry.isFile()) {
      const fileMode = lstatSync(file).mode;
      if (fileMode & 0o077) chmodSync(file, fileMode & 0o7700);
    }
  }
}

/**
 * Takes the embedded database's directory for this process alone. PGlite cannot share a directory
 * between processes, so a second process is refused with the directory and the lock file named.
 * A lock left by a process that no longer exists (kill -9) is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // One made before decision 0030 was 0755: closed before anything in it is opened.
  chmodSync(dataDir, statSync(dataDir).mode & 0o7700);
  const lockPath = path.join(dataDir, 'switchboard.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(lockPath, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && processIsAlive(owner)) {
        throw new DataDirLockedError(
          `The data directory ${dataDir} is in use by another Switchboard process (pid ${owner}, lock file ${lockPath}). ` +
            'The embedded database serves one process; stop the other one, choose another SWITCHBOARD_DATA_DIR, ' +
            'or set DATABASE_URL to share a PostgreSQL between processes.',
        );
      }
      rmSync(lockPath, { force: true }); // stale: its process is gone
    }
  }
  throw new DataDirLockedError(`Could not take the lock file ${lockPath}`);
}

/**
 * The 32-byte master key: from `SWITCHBOARD_MASTER_KEY` when set; in embedded mode generated once
 * into `<dataDir>/master.key` (mode 0600); required when the database is a shared PostgreSQL,
 * because every process must hold the same key.
 */
export function resolveMasterKey(options: { configured: string | undefined; dataDir?: string }): Buffer {
  if (options.configured) {
    const key = Buffer.from(options.configured, 'base64');
    if (key.length !== 32) {
      throw new Error('SWITCHBOARD_MASTER_KEY must be 32 bytes encoded as base64 (openssl rand -base64 32)');
    }
    return key;
  }
  if (!options.dataDir) {
    throw new Error(
      'SWITCHBOARD_MASTER_KEY is required with DATABASE_URL: every process must share it (openssl rand -base64 32)',
    );
  }
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const keyPath = path.join(options.dataDir, 'master.key');
  try {
    const fd = openSync(keyPath, 'wx', 0o600);
    writeFileSync(fd, `${randomBytes(32).toString('base64')}\n`);
    closeSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return resolveMasterKey({ configured: readFileSync(keyPath, 'utf8').trim() });
}
