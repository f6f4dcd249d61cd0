import { readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { rowsOf } from './client.js';

/** The committed migrations drizzle-kit generates (`drizzle/`), found from this file in src/ or dist/. */
const MIGRATIONS_DIR = new URL('../../drizzle/', import.meta.url);

interface JournalEntry {
  idx: number;
  tag: string;
}

async function readMigrations(): Promise<{ idx: number; tag: string; statements: string[] }[]> {
  const journal = JSON.parse(await readFile(new URL('meta/_journal.json', MIGRATIONS_DIR), 'utf8')) as {
    entries: JournalEntry[];
  };
  return Promise.all(
    journal.entries.map(async ({ idx, tag }) => {
      const text = await readFile(new URL(`${tag}.sql`, MIGRATIONS_DIR), 'utf8');
      const statements = text
        .split('--> statement-breakpoint')
        .map((s) => s.trim())
        .filter(Boolean);
      return { idx, tag, statements };
    }),
  );
}

/**
 * Applies every committed migration not yet applied, forward only, in one transaction under an
 * advisory lock, so any number of processes may start at once against one PostgreSQL.
 * Returns the tags it applied.
 */
export async function migrate(db: Db): Promise<string[]> {
  const migrations = await readMigrations();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7301946521)`);
    await tx.execute(
      sql`create table if not exists switchboard_migrations (idx integer primary key, tag text not null, applied_at timestamptz not null default now())`,
    );
    const applied = new Set(
      rowsOf<{ idx: number }>(await tx.execute(sql`select idx from switchboard_migrations`)).map((r) => r.idx),
    );
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.idx)) continue;
      for (const statement of migration.statements) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into switchboard_migrations (idx, tag) values (${migration.idx}, ${migration.tag})`);
      done.push(migration.tag);
    }
    return done;
  });
}

/** Whether every committed migration has been applied (for `/readyz`). */
export async function migrationsCurrent(db: Db): Promise<boolean> {
  const migrations = await readMigrations();
  const rows = rowsOf<{ count: number | string }>(
    await db.execute(sql`select count(*)::int as count from switchboard_migrations`),
  );
  return Number(rows[0]?.count ?? 0) >= migrations.length;
}
