import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/app.js';
import { until } from './helpers/wait.js';

// What the README promises a newcomer: a configuration table with every setting the service and
// the CLI read, and a tour that runs as written, on whatever port is free (decision 0034).

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The text of the README's `## heading` section, up to the next one. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start, `README section "${heading}"`).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the README', () => {
  it('lists in its configuration table every environment variable src/ reads', () => {
    const read = new Set<string>();
    // `env.NAME`, `env['NAME']`, and the config readers' `(env, 'NAME'`.
    const patterns = [
      /\benv\.([A-Z][A-Z0-9_]+)/g,
      /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g,
      /\(env, '([A-Z][A-Z0-9_]+)'/g,
    ];
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of patterns) for (const match of text.matchAll(pattern)) read.add(match[1] as string);
    }
    expect(read).toContain('SWITCHBOARD_URL');
    const table = section('Configuration');
    const missing = [...read].filter((name) => !table.includes(`\`${name}\``)).sort();
    expect(missing).toEqual([]);
  });

  it('has a tour that runs as written on a port other than 3000', async () => {
    const tour = /```sh\n([\s\S]*?)\n```/.exec(section('A five-minute tour'))?.[1];
    expect(tour).toBeDefined();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-tour-'));
    dirs.push(dataDir);
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SWITCHBOARD_DATA_DIR: dataDir };
    for (const name of ['DATABASE_URL', 'SWITCHBOARD_URL', 'SWITCHBOARD_ROLE', 'LOG_LEVEL']) delete env[name];
    // In its own process group: the server and the two local endpoints it starts in the background go with it.
    const shell = spawn('bash', ['-eo', 'pipefail', '-c', tour as string], { cwd: ROOT, env, detached: true });
    let output = '';
    shell.stdout.on('data', (chunk) => {
      output += chunk;
    });
    shell.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => shell.once('exit', resolve));
    try {
      process.kill(-(shell.pid as number), 'SIGTERM');
    } catch {}
    // The server writes its data dir while it shuts down: the dir is removed only once the group is gone.
    await until(
      "the tour's processes to exit",
      () => {
        try {
          process.kill(-(shell.pid as number), 0);
          return false;
        } catch {
          return true;
        }
      },
      30_000,
    );
    expect(code, output).toBe(0);
    // Three calls placed by the CLI, each accepted, on the port chosen.
    expect(output.match(/"success":true/g)?.length, output).toBe(3);
    expect(output).toContain(`Switchboard ready — dashboard http://127.0.0.1:${port}`);
  }, 180_000);
});
