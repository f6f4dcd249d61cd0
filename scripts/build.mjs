// Builds what is out of date: the server (src/ → dist/, tsc) and the dashboard (web/ → dist/web, vite).
// `npm install` builds both (prepare); `npm start` runs this first (prestart) and, on a tree built
// since its sources last changed, builds nothing: it hashes the inputs (about 50 ms) and compares
// them with what the last build recorded in dist/.build-state.json. Contents are hashed, not dates,
// so a fresh clone, a checkout or a `touch` costs no rebuild, and an edit never goes unnoticed.
// `--force` builds both whatever the state says. Decision 0034. It also packs the embedded database's
// new-cluster template when the installed PGlite has none (decision 0064), bundles Drizzle and the
// Vapi SDK into dist/vendor/ after each server build (scripts/vendor.mjs, decisions 0084, 0089), and
// compiles the providers' published schemas into validators beside them (decision 0090).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { vendorPackages } from './vendor.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STATE = path.join(ROOT, 'dist', '.build-state.json');
const force = process.argv.includes('--force');
const require = createRequire(path.join(ROOT, 'package.json'));
// Vite's config names web/ relative to the working directory.
process.chdir(ROOT);

/** Every file under `dir` (relative to the root), sorted, skipping dependencies. */
function filesUnder(dir) {
  const found = [];
  const walk = (relative) => {
    for (const entry of readdirSync(path.join(ROOT, relative), { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  walk(dir);
  return found.sort();
}

/** The installed version of each dependency the package names: an upgrade rebuilds. */
function dependencyVersions() {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const names = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).sort();
  return names.map((name) => {
    try {
      return `${name}@${JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version}`;
    } catch {
      return `${name}@?`;
    }
  });
}

/** One hash over the files' names and contents and the extra facts; a missing file counts as a change. */
function hashOf(files, facts = []) {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    try {
      hash.update(readFileSync(path.join(ROOT, file)));
    } catch {
      hash.update('\0missing\0');
    }
    hash.update('\0');
  }
  for (const fact of facts) hash.update(`${fact}\0`);
  return hash.digest('hex');
}

function readState() {
  try {
    return JSON.parse(readFileSync(STATE, 'utf8'));
  } catch {
    return {};
  }
}

function writeState(state) {
  mkdirSync(path.dirname(STATE), { recursive: true });
  writeFileSync(STATE, `${JSON.stringify(state, null, 2)}\n`);
}

const versions = dependencyVersions();
const state = readState();

const serverInputs = () =>
  hashOf([...filesUnder('src'), 'scripts/vendor.mjs', 'tsconfig.json', 'package.json'], versions);
// The dashboard's inputs: web/, its Vite config, and any file outside web/ the last build bundled
// (a type or constant imported from src/, say), recorded from Vite's own module graph.
const dashboardInputs = (bundled = state.dashboard?.bundled ?? []) =>
  hashOf([...new Set([...filesUnder('web'), 'vite.config.ts', ...bundled])].sort(), versions);

async function buildServer({ fromScratch }) {
  process.stderr.write('switchboard: building the server (src/ → dist/)\n');
  // tsc trusts its incremental state even when the files it wrote are gone: forget it then.
  if (fromScratch) rmSync(path.join(ROOT, 'dist', '.tsbuildinfo'), { force: true });
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // Drizzle and the Vapi SDK, bundled: they load several times faster so (decisions 0084, 0089).
  await vendorPackages(ROOT);
  // The providers' published schemas, compiled here rather than at a process's first agent save
  // (decision 0090): one module of validators beside each `<name>-schemas.json` in dist/providers/.
  const schemas = await import(pathToFileURL(path.join(ROOT, 'dist', 'providers', 'published-schemas.js')).href);
  schemas.writeBuiltValidators(path.join(ROOT, 'dist', 'providers'));
}

async function buildDashboard() {
  process.stderr.write('switchboard: building the dashboard (web/ → dist/web)\n');
  const { build } = await import('vite');
  // React's production build whatever NODE_ENV the shell has (vite keeps one already set, and
  // anything but "production" gives React's development build: double effects, slower renders).
  process.env.NODE_ENV = 'production';
  const outputs = [await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn' })].flat();
  const bundled = new Set();
  for (const output of outputs) {
    for (const item of output.output ?? []) {
      if (item.type !== 'chunk') continue;
      for (const id of item.moduleIds) {
        const file = path.relative(ROOT, id.split('?')[0] ?? id).split(path.sep).join('/');
        const ours = !file.startsWith('..') && !path.isAbsolute(file) && !file.includes('node_modules/');
        if (ours && !file.startsWith('web/') && !id.startsWith('\0')) bundled.add(file);
      }
    }
  }
  return [...bundled].sort();
}

// Each hash is taken before its build: a file edited while it runs makes the next start build again.
let built = false;
const serverHash = serverInputs();
const serverMissing = !existsSync(path.join(ROOT, 'dist', 'cli.js'));
if (force || state.server !== serverHash || serverMissing) {
  await buildServer({ fromScratch: force || serverMissing });
  writeState({ ...readState(), server: serverHash });
  built = true;
}

// The embedded database's template (decision 0064): a new cluster packed once per installed PGlite,
// so that a new data dir is unpacked rather than made by `initdb`. A few seconds, once.
const template = await import(pathToFileURL(path.join(ROOT, 'dist', 'db', 'cluster-template.js')).href);
if (force || !template.usableClusterTemplate()) {
  process.stderr.write(
    `switchboard: packing the embedded database's new-cluster template (PGlite ${template.installedPgliteVersion()})\n`,
  );
  try {
    await template.writeClusterTemplate();
  } catch (error) {
    // Only a speed-up: without it, each new data dir is made by `initdb`, as before.
    process.stderr.write(`switchboard: could not pack the template (${error}); new data dirs will run initdb\n`);
  }
  built = true;
}

const dashboardHash = dashboardInputs();
if (force || state.dashboard?.hash !== dashboardHash || !existsSync(path.join(ROOT, 'dist', 'web', 'index.html'))) {
  const before = state.dashboard?.bundled ?? [];
  const bundled = await buildDashboard();
  const same = bundled.length === before.length && bundled.every((file, i) => file === before[i]);
  writeState({ ...readState(), dashboard: { hash: same ? dashboardHash : dashboardInputs(bundled), bundled } });
} else if (!built && process.env.npm_lifecycle_event !== 'prestart') {
  // `npm start` says nothing when nothing was built; `npm run build` says why it did nothing.
  process.stderr.write('switchboard: the server and the dashboard are up to date (--force builds them again)\n');
}
