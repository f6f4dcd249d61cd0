import path from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { type Database, openPglite, openPostgres, withUnlimitedConnection } from './db/client.js';
import { lockDataDir, removeGroupAndOtherAccess, resolveMasterKey } from './db/data-dir.js';
import { openEmbeddedPostgres } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { HTTP_LIMITS } from './http-limits.js';

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

export interface RunningServer {
  app: FastifyInstance;
  /** The address it listens on, e.g. http://127.0.0.1:3000 (null for a worker without SWITCHBOARD_WORKER_PORT). */
  url: string | null;
  close(): Promise<void>;
}

/** `switchboard serve`: database, app, HTTP (unless this process is a worker), background work. */
export async function startServer(
  config: Config,
  options: { logger?: FastifyServerOptions['logger'] } = {},
): Promise<RunningServer> {
  const opened = await openConfiguredDatabase(config);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp({ config, database: opened.database, masterKey: opened.masterKey, logger: options.logger });
    let url: string | null = null;
    if (config.role === 'worker') {
      const backlog = HTTP_LIMITS.listenBacklog;
      if (config.workerPort !== undefined)
        url = await app.listen({ port: config.workerPort, host: config.host, backlog });
      else await app.ready();
      app.log.info({ role: config.role, url }, 'worker started');
    } else {
      url = await app.listen({ port: config.port, host: config.host, backlog: HTTP_LIMITS.listenBacklog });
    }
    const running = app;
    let closing: Promise<void> | undefined;
    return {
      app: running,
      url,
      close: () => {
        closing ??= running.close().then(() => opened.close());
        return closing;
      },
    };
  } catch (error) {
    await app?.close().catch(() => {});
    await opened.close();
    throw error;
  }
}
