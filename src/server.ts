import path from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { type Database, openPglite } from './db/client.js';
import { lockDataDir, removeGroupAndOtherAccess, resolveMasterKey } from './db/data-dir.js';
import { openEmbeddedPostgres } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { HTTP_LIMITS } from './http-limits.js';
import { formatCount } from './lib/format-count.js';
import { boundedLogDestination, resolveLogFormat, serviceLogger } from './logging.js';

export interface OpenedDatabase {
  database: Database;
  masterKey: Buffer;
  /** Closes the database and releases the data-dir lock. */
  close(): Promise<void>;
}

/**
 * The database the configuration names, migrated: a shared PostgreSQL with `DATABASE_URL`, else
 * PGlite in the data dir, locked to this process.
 */
export async function openConfiguredDatabase(config: Config): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    const masterKey = resolveMasterKey({ configured: config.masterKey });
    // Loaded only here: a process on the embedded database has no use for node-postgres (decision 0081).
    const { openPostgres, withUnlimitedConnection } = await import('./db/postgres.js');
    await withUnlimitedConnection(config.databaseUrl, migrate);
    const database = openPostgres({ url: config.databaseUrl, timeoutMs: config.databaseTimeoutMs });
    return { database, masterKey, close: () => database.close() };
  }
  const lock = lockDataDir(config.dataDir);
  try {
    const masterKey = resolveMasterKey({ configured: config.masterKey, dataDir: config.dataDir });
    const database = openPglite(await openEmbeddedPostgres(path.join(config.dataDir, 'pgdata')));
    await migrate(database.db);
    removeGroupAndOtherAccess(config.dataDir);
    return {
      database,
      masterKey,
      async close() {
        await database.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Where the service keeps its data, as the ready line says it: the data dir (`./.switchboard` when
 * under the working directory) or the shared PostgreSQL's address without its password or query.
 */
export function describeStorage(config: Config, cwd: string = process.cwd()): string {
  if (config.databaseUrl) {
    try {
      const url = new URL(config.databaseUrl);
      if (url.password) url.password = '***';
      url.search = '';
      return `database ${url.href} (PostgreSQL)`;
    } catch {
      return 'database from DATABASE_URL (PostgreSQL)';
    }
  }
  const relative = path.relative(cwd, config.dataDir);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  return `data ${inside ? `./${relative.split(path.sep).join('/')}` : config.dataDir} (embedded PostgreSQL)`;
}

/**
 * The one line that says the service is up, where to open it and where its data lives, e.g.
 * `Switchboard ready — dashboard http://127.0.0.1:3000 — data ./.switchboard (embedded PostgreSQL)`.
 */
export function readyLine(config: Config, url: string | null, cwd: string = process.cwd()): string {
  const storage = describeStorage(config, cwd);
  if (config.role === 'worker')
    return `Switchboard worker started — ${url ? `health ${url}` : 'no HTTP port'} — ${storage}`;
  return `Switchboard ready — dashboard ${url} — ${storage}`;
}

export interface RunningServer {
  app: FastifyInstance;
  /** The address it listens on, e.g. http://127.0.0.1:3000 (null for a worker without SWITCHBOARD_WORKER_PORT). */
  url: string | null;
  close(): Promise<void>;
}

/** `switchboard serve`: database, app, HTTP (unless this process is a worker), background work. */
export async function startServer(
  config: Config,
  options: {
    /** Fastify's logger option; default: the log `config.logFormat` chooses (`serviceLogger`). */
    logger?: FastifyServerOptions['logger'];
    /** Whether standard output is a terminal, for `SWITCHBOARD_LOG_FORMAT=auto`; default false (JSON lines). */
    stdoutIsTerminal?: boolean;
  } = {},
): Promise<RunningServer> {
  const format = resolveLogFormat(config.logFormat, options.stdoutIsTerminal ?? false);
  // Lines wait for standard output within a budget (decision 0074), JSON or readable: Node's own
  // standard output queues without bound on a pipe that is not read, and blocks the service on a
  // terminal that is not (Ctrl-S).
  const destination = options.logger === undefined ? boundedLogDestination(config.logBufferBytes) : undefined;
  const logger = options.logger ?? (await serviceLogger({ level: config.logLevel, format, destination }));
  const opened = await openConfiguredDatabase(config);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp({
      config,
      database: opened.database,
      masterKey: opened.masterKey,
      logger,
      droppedLogLines: destination?.droppedLines,
      // The embedded database's data dir is locked to this process: no other plays its calls.
      soleProcess: !config.databaseUrl,
    });
    const log = app.log;
    destination?.onCaughtUp((dropped) =>
      log.warn(
        { droppedLines: dropped },
        `${dropped === 1 ? '1 log line was' : `${formatCount(dropped)} log lines were`} dropped: standard output fell more than SWITCHBOARD_LOG_BUFFER_BYTES (${formatCount(config.logBufferBytes)} bytes) behind`,
      ),
    );
    // Fastify logs a line per address it listens on: the first is the ready line, so that a person
    // reads one line for one event; a host with several addresses (0.0.0.0) names the others after it.
    let listening = false;
    const listenTextResolver = (address: string) => {
      if (listening) return `also listening at ${address}`;
      listening = true;
      return readyLine(config, address);
    };
    const listen = { host: config.host, backlog: HTTP_LIMITS.listenBacklog, listenTextResolver };
    let url: string | null = null;
    if (config.role !== 'worker') url = await app.listen({ ...listen, port: config.port });
    else if (config.workerPort !== undefined) url = await app.listen({ ...listen, port: config.workerPort });
    else {
      await app.ready();
      app.log.info(readyLine(config, null));
    }
    const running = app;
    let closing: Promise<void> | undefined;
    return {
      app: running,
      url,
      close: () => {
        // Last, the log's lines still waiting are written, within a budget (decision 0075).
        closing ??= running
          .close()
          .then(() => opened.close())
          .then(() => destination?.settle());
        return closing;
      },
    };
  } catch (error) {
    await app?.close().catch(() => {});
    await opened.close();
    throw error;
  }
}
