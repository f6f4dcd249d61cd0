import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../src/db/client.js';
import {
  installedPgliteVersion,
  migrationsDigest,
  unpackClusterTemplate,
  usableClusterTemplate,
  writeClusterTemplate,
} from '../src/db/cluster-template.js';
import { openEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

/** One tar entry as ustar writes it: a header block, then the data padded to whole blocks. */
function tarEntry(name: string, type: string, data = Buffer.alloc(0), mode = 0o600): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write(`${mode.toString(8).padStart(7, '0')}\0`, 100, 8, 'ascii');
  header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 12, 'ascii');
  header.write(type, 156, 1, 'ascii');
  header.write('ustar\u000000', 257, 8, 'ascii');
  const padding = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header, data, padding]);
}

const archive = (...entries: Buffer[]) => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));

// The embedded database's new-cluster template (decision 0064).
describe('the new-cluster template', () => {
  let dir: string;
  const opened: PGlite[] = [];

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-template-'));
  });

  afterAll(async () => {
    for (const client of opened) await client.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('is used only when the installed PGlite made it with the committed migrations', () => {
    const file = path.join(dir, 'named.tar.gz');
    writeFileSync(file, archive());
    expect(usableClusterTemplate(file)).toBeUndefined(); // no version beside it
    writeFileSync(`${file}.version`, `0.0.1 migrations ${migrationsDigest()}\n`);
    expect(usableClusterTemplate(file)).toBeUndefined();
    writeFileSync(`${file}.version`, `${installedPgliteVersion()}\n`); // an earlier build's: not migrated
    expect(usableClusterTemplate(file)).toBeUndefined();
    writeFileSync(`${file}.version`, `${installedPgliteVersion()} migrations ${'0'.repeat(64)}\n`);
    expect(usableClusterTemplate(file)).toBeUndefined();
    writeFileSync(`${file}.version`, `${installedPgliteVersion()} migrations ${migrationsDigest()}\n`);
    expect(usableClusterTemplate(file)).toBe(file);
    rmSync(file);
    expect(usableClusterTemplate(file)).toBeUndefined();
  });

  it('unpacks directories and files, and refuses paths out of the cluster and entries of other kinds', async () => {
    const file = path.join(dir, 'hand-made.tar.gz');
    const big = Buffer.alloc(300_000, 7); // spans many stream chunks
    writeFileSync(
      file,
      archive(
        tarEntry('/base', '5', undefined, 0o700),
        tarEntry('/base/1/PG_VERSION', '0', Buffer.from('17\n')),
        tarEntry('/pg_wal/segment', '0', big),
        tarEntry('/empty', '0'),
      ),
    );
    const into = path.join(dir, 'unpacked');
    await unpackClusterTemplate(file, into);
    expect(readdirSync(into).sort()).toEqual(['base', 'empty', 'pg_wal']);
    expect(readdirSync(path.join(into, 'base', '1'))).toEqual(['PG_VERSION']);
    expect(readFileSync(path.join(into, 'base', '1', 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(readFileSync(path.join(into, 'pg_wal', 'segment')).equals(big)).toBe(true);

    const refused = async (name: string, ...entries: Buffer[]) => {
      const bad = path.join(dir, `${name}.tar.gz`);
      writeFileSync(bad, archive(...entries));
      await expect(unpackClusterTemplate(bad, path.join(dir, name))).rejects.toThrow(/template/);
    };
    await refused('escape', tarEntry('base/../../outside', '0', Buffer.from('x')));
    await refused('link', tarEntry('/base/link', '2'));
    expect(existsSync(path.join(dir, 'outside'))).toBe(false);
    const truncated = path.join(dir, 'truncated.tar.gz');
    writeFileSync(truncated, gzipSync(tarEntry('/file', '0', Buffer.alloc(2000)).subarray(0, 1024)));
    await expect(unpackClusterTemplate(truncated, path.join(dir, 'truncated'))).rejects.toThrow(/ends before/);
  });

  it('makes a migrated cluster that opens like one made by initdb; a damaged template falls back to initdb', async () => {
    const file = path.join(dir, 'pglite-cluster.tar.gz');
    await writeClusterTemplate(file);
    expect(usableClusterTemplate(file)).toBe(file);
    const damaged = path.join(dir, 'damaged.tar.gz');
    writeFileSync(damaged, 'not gzip');
    writeFileSync(`${damaged}.version`, readFileSync(`${file}.version`));

    const version = async (client: PGlite) =>
      (await client.query<{ v: string }>('select current_setting($1) as v', ['server_version_num'])).rows[0]?.v;
    const fromTemplate = await openEmbeddedPostgres(path.join(dir, 'from-template'), { template: file });
    opened.push(fromTemplate);
    const fromInitdb = await openEmbeddedPostgres(path.join(dir, 'from-initdb'), { template: null });
    opened.push(fromInitdb);
    const fromDamaged = await openEmbeddedPostgres(path.join(dir, 'from-damaged'), { template: damaged });
    opened.push(fromDamaged);
    const again = await openEmbeddedPostgres(path.join(dir, 'from-template-again'), { template: file });
    opened.push(again);
    // The template's cluster comes with every committed migration applied (decision 0083); initdb's with none.
    const journal = JSON.parse(readFileSync(new URL('../drizzle/meta/_journal.json', import.meta.url), 'utf8'));
    const applied = async (client: PGlite) =>
      (await client.query<{ n: number }>('select count(*)::int as n from switchboard_migrations')).rows[0]?.n;
    expect(await applied(fromTemplate)).toBe(journal.entries.length);
    expect(await migrate(openPglite(fromTemplate).db)).toEqual([]);
    await expect(fromInitdb.query('select 1 from switchboard_migrations')).rejects.toThrow(/does not exist/);
    for (const client of opened) {
      await client.query('create table t (id int primary key)');
      await client.query('insert into t values (1)');
      expect((await client.query('select id from t')).rows).toEqual([{ id: 1 }]);
    }
    // initdb gives each cluster its own system identifier; clusters unpacked from one template share it.
    const identifier = async (client: PGlite) =>
      (await client.query<{ id: string }>('select system_identifier::text as id from pg_control_system()')).rows[0]?.id;
    expect(await identifier(again)).toBe(await identifier(fromTemplate));
    expect(await identifier(fromInitdb)).not.toBe(await identifier(fromTemplate));
    expect(await identifier(fromDamaged)).not.toBe(await identifier(fromTemplate));
    expect(await version(fromTemplate)).toBe(await version(fromInitdb));
    expect(await version(fromDamaged)).toBe(await version(fromInitdb));
    expect(existsSync(path.join(dir, 'from-damaged.creating'))).toBe(false);
  }, 180_000);
});
