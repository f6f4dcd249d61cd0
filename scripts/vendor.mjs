// Bundles the Drizzle entry points the compiled server imports into dist/vendor/, and points dist/'s
// imports at the bundle (decision 0084). Why: to learn each module's format, Node 22 and later parse
// its package's `exports` map again (getPackageScopeConfig copies the manifest with a spread, which
// runs the getter that parses it), and drizzle-orm's is 179 KB for about a hundred and fifty modules.
// Importing it took 0.5–0.8 s and grew the heap to 260 MB on Node 24, 0.25–0.3 s on Node 22, 70 ms
// on Node 20; the bundle, a handful of files in our own package, loads in 30 ms on each.
// The Vapi SDK too (decision 0089): about 2,600 modules, 0.4–0.9 s and 40–65 MB to import; the
// bundle, one file, 70–80 ms. Its first import is on the first Vapi call or publish of a process.
// Sources in src/ keep importing the packages: tests and benchmarks run them against the packages.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The packages bundled; only their entry points dist/ imports are built. */
const VENDORED = ['drizzle-orm', '@vapi-ai/server-sdk'];
const VENDOR_DIR = 'vendor';

const names = VENDORED.map((name) => name.replace(/[/.]/g, '\\$&')).join('|');
// A static import or re-export, a side-effect import or a dynamic import of a vendored package...
const BARE = new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(\\s*|\\bimport\\s+)(['"])((?:${names})(?:/[\\w./-]+)?)\\2`, 'g');
// ...and one already pointed at the bundle by an earlier build (tsc writes only what changed), of
// any package: one taken out of VENDORED since is pointed back at its package.
const POINTED = new RegExp(`(['"])(?:\\./|(?:\\.\\./)+)${VENDOR_DIR}/((?:@[\\w.-]+/)?[\\w.-]+(?:/[\\w./-]+)?)\\.js\\1`, 'g');
const isVendored = (entry) => VENDORED.some((name) => entry === name || entry.startsWith(`${name}/`));

/** The compiled server's JavaScript files, outside the bundle and the dashboard. */
function serverFiles(dist) {
  return readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js') && ![VENDOR_DIR, 'web'].some((dir) => file.startsWith(`${dir}${path.sep}`)))
    .map((file) => path.join(dist, file));
}

/**
 * Builds dist/vendor/ from the vendored packages' entry points that dist/ imports (by name or, from
 * an earlier build, by the bundle's path), then rewrites the names to relative paths. Runs after
 * every server build, so an upgraded package is bundled again even when tsc wrote nothing new.
 */
export async function vendorPackages(root) {
  const dist = path.join(root, 'dist');
  const vendor = path.join(dist, VENDOR_DIR);
  const files = serverFiles(dist).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
  const entries = new Set();
  for (const { text } of files) {
    for (const match of text.matchAll(BARE)) entries.add(match[3]);
    for (const match of text.matchAll(POINTED)) if (isVendored(match[2])) entries.add(match[2]);
  }
  rmSync(vendor, { recursive: true, force: true });
  if (entries.size > 0) await bundle(root, vendor, [...entries]);

  for (const { file, text } of files) {
    const toBundle = (entry) => {
      const relative = path.relative(path.dirname(file), path.join(vendor, `${entry}.js`)).split(path.sep).join('/');
      return relative.startsWith('.') ? relative : `./${relative}`;
    };
    const rewritten = text
      .replace(BARE, (_, lead, quote, entry) => `${lead}${quote}${toBundle(entry)}${quote}`)
      .replace(POINTED, (_, quote, entry) => `${quote}${isVendored(entry) ? toBundle(entry) : entry}${quote}`);
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

/** Builds the bundle of these entry points into `vendor`. */
async function bundle(root, vendor, entries) {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: entries.sort().map((entry) => ({ in: fileURLToPath(import.meta.resolve(entry)), out: entry })),
    outdir: vendor,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Drizzle's drivers (pg, PGlite) stay where npm put them, one copy for everyone; the Vapi SDK
    // depends on nothing but Node.
    packages: 'external',
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  for (const [output, { imports }] of Object.entries(result.metafile.outputs)) {
    const leak = imports.find((item) => item.external && isVendored(item.path));
    if (leak) throw new Error(`${output} still imports ${leak.path}: bundle it as an entry point`);
  }
}
