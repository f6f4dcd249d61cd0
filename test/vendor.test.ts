import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeVapi } from './helpers/fake-vapi.js';

// The build bundles Drizzle into dist/vendor/ and points the compiled server at it (decision 0084):
// Node 22 and 24 load the package itself ten to twenty times slower than Node 20. The Vapi SDK too
// (decision 0089): its 2,600 modules took 0.4–0.9 s to import, the bundle 70–80 ms.

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const VENDOR_SCRIPT = pathToFileURL(path.join(ROOT, 'scripts/vendor.mjs')).href;
const trees: string[] = [];

afterAll(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

/** Every `.js` file under `dir`. */
function jsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => path.join(dir, file));
}

/** The modules a file imports: its import and export statements' and its dynamic imports' names. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const statement = /^(?:import|export)\b(?:[^;'"]*?\bfrom)?\s*(['"])([^'"]+)\1|\bimport\(\s*(['"])([^'"]+)\3/gm;
  return [...text.matchAll(statement)].map((match) => match[2] ?? match[4] ?? '');
}

/** A new tree of ES modules with the folder `dir` in it, removed after the file. */
function newTree(dir: string): string {
  const tree = mkdtempSync(path.join(tmpdir(), 'switchboard-vendor-'));
  trees.push(tree);
  mkdirSync(path.join(tree, dir), { recursive: true });
  writeFileSync(path.join(tree, 'package.json'), '{ "type": "module" }\n');
  return tree;
}

/** Runs `vendorPackages` on a tree, as the build does after tsc. */
function vendor(tree: string): void {
  execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { vendorPackages } from '${VENDOR_SCRIPT}'; await vendorPackages(process.argv[1]);`,
      tree,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
}

describe('the vendored packages', () => {
  it('is what the built server imports: no file of dist/ names the package, and the bundle names only its drivers', () => {
    const dist = path.join(ROOT, 'dist');
    const server = jsFiles(dist).filter((file) => !/^(vendor|web)\//.test(path.relative(dist, file)));
    const imported = server.flatMap(specifiers);
    expect(imported.filter((name) => name.startsWith('drizzle-orm'))).toEqual([]);
    expect(imported).toContain('../vendor/drizzle-orm.js');
    expect(imported).toContain('../../vendor/drizzle-orm/pg-core.js');

    const bundle = jsFiles(path.join(dist, 'vendor')).flatMap(specifiers);
    expect(new Set(bundle.filter((name) => !name.startsWith('.') && !isBuiltin(name)))).toEqual(
      new Set(['pg', '@electric-sql/pglite']),
    );
  });

  it('holds the Vapi SDK too: the Vapi adapter imports the bundle, whose client speaks to a Vapi', async () => {
    const dist = path.join(ROOT, 'dist');
    const server = jsFiles(dist).filter((file) => !/^(vendor|web)\//.test(path.relative(dist, file)));
    expect(server.flatMap(specifiers).filter((name) => name.startsWith('@vapi-ai/'))).toEqual([]);
    expect(specifiers(path.join(dist, 'providers/vapi/vapi-adapter.js'))).toContain(
      '../../vendor/@vapi-ai/server-sdk.js',
    );
    // The bundled client speaks to a Vapi as the package does (the local fake checks the request
    // against Vapi's published schema and the bearer key).
    const sdk = await import(pathToFileURL(path.join(dist, 'vendor/@vapi-ai/server-sdk.js')).href);
    const vapi = await startFakeVapi();
    try {
      const client = new sdk.VapiClient({ token: vapi.apiKey, baseUrl: vapi.url, maxRetries: 0 });
      const created = await client.assistants.create({ name: 'Bundled', firstMessage: 'Hi' });
      expect(vapi.assistants.get(created.id)).toMatchObject({ name: 'Bundled', firstMessage: 'Hi' });
      expect(vapi.violations).toEqual([]);
    } finally {
      await vapi.close();
    }
  });

  it('bundles the entry points a tree imports, rewrites them, and finds them again in a tree it rewrote', () => {
    const tree = newTree('dist/db/schema');
    writeFileSync(
      path.join(tree, 'dist/db/schema/table.js'),
      "import { pgTable, text } from 'drizzle-orm/pg-core';\nexport const people = pgTable('people', { name: text('name') });\n",
    );
    writeFileSync(
      path.join(tree, 'dist/query.js'),
      [
        "import { eq } from 'drizzle-orm';",
        'import { PgDialect } from "drizzle-orm/pg-core";',
        "import { people } from './db/schema/table.js';",
        "const orm = await import('drizzle-orm');",
        "const query = new PgDialect().sqlToQuery(orm.and(eq(people.name, 'Ada'), orm.isNotNull(people.name)));",
        'console.log(JSON.stringify(query));',
        '',
      ].join('\n'),
    );

    vendor(tree);
    expect(specifiers(path.join(tree, 'dist/query.js'))).toEqual([
      './vendor/drizzle-orm.js',
      './vendor/drizzle-orm/pg-core.js',
      './db/schema/table.js',
      './vendor/drizzle-orm.js',
    ]);
    expect(specifiers(path.join(tree, 'dist/db/schema/table.js'))).toEqual(['../../vendor/drizzle-orm/pg-core.js']);
    const ran = () =>
      JSON.parse(
        execFileSync(process.execPath, [path.join(tree, 'dist/query.js')], { encoding: 'utf8', timeout: 60_000 }),
      );
    // A table from one entry point, operators from another and from a dynamic import, all bundled.
    expect(ran()).toMatchObject({ sql: '("people"."name" = $1 and "people"."name" is not null)', params: ['Ada'] });

    // A later build in which tsc wrote nothing new: the bundle is made again from the rewritten names.
    const rewritten = readFileSync(path.join(tree, 'dist/query.js'), 'utf8');
    rmSync(path.join(tree, 'dist/vendor'), { recursive: true });
    vendor(tree);
    expect(readFileSync(path.join(tree, 'dist/query.js'), 'utf8')).toBe(rewritten);
    expect(ran().params).toEqual(['Ada']);
  });

  it('points an import of a package bundled by an earlier build, and bundled no more, back at the package', () => {
    const tree = newTree('dist/db');
    // As an earlier build left it with `pg` in VENDORED (tsc writes only what changed: the file stays so).
    writeFileSync(
      path.join(tree, 'dist/db/client.js'),
      [
        "import pg from '../vendor/pg.js';",
        "import { eq } from '../vendor/drizzle-orm.js';",
        'console.log(JSON.stringify([typeof pg.Pool, typeof eq]));',
        '',
      ].join('\n'),
    );
    vendor(tree);
    expect(specifiers(path.join(tree, 'dist/db/client.js'))).toEqual(['pg', '../vendor/drizzle-orm.js']);
    // The tree finds the packages where the project has them.
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
    const ran = execFileSync(process.execPath, [path.join(tree, 'dist/db/client.js')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(JSON.parse(ran)).toEqual(['function', 'function']);
  });
});
