import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPglite } from '../src/db/client.js';
import { usableClusterTemplate } from '../src/db/cluster-template.js';
import { START_PARAMS } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { openPostgres } from '../src/db/postgres.js';
import { ensureDashboardBuilt } from './helpers/dashboard-build.js';
import { databaseUrlWithName } from './helpers/database-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL: the migrated template each test file copies. */
    pgTemplate: string | null;
    /** PGlite: a dump of a migrated database each test file loads (much faster than migrating). */
    pgliteDump: string | null;
  }
}

/** Migrates once per run; each test file then starts from a copy. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The browser tests load the built dashboard: built here once, not by each file at the same time.
  ensureDashboardBuilt();
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const template = `sb_template_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${template}`);
    const database = openPostgres({ url: databaseUrlWithName(serverUrl, template), poolSize: 1 });
    await migrate(database.db);
    await database.close();
    project.provide('pgTemplate', template);
    project.provide('pgliteDump', null);
    return async () => {
      await admin.query(`drop database if exists ${template} with (force)`);
      await admin.end();
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-test-'));
  // From the build's new-cluster template when there is one (decision 0064): `initdb` is most of the
  // wait. It comes migrated (decision 0083); without one, or made with other migrations, `migrate` applies them.
  const template = usableClusterTemplate();
  const client = await PGlite.create({
    ...(template ? { loadDataDir: new Blob([readFileSync(template)]) } : {}),
    startParams: START_PARAMS,
  });
  await migrate(openPglite(client).db);
  const dump = await client.dumpDataDir('none');
  const dumpPath = path.join(dir, 'migrated.tar');
  writeFileSync(dumpPath, Buffer.from(await dump.arrayBuffer()));
  await client.close();
  project.provide('pgTemplate', null);
  project.provide('pgliteDump', dumpPath);
  return async () => rmSync(dir, { recursive: true, force: true });
}
