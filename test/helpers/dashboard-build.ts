import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function newestChange(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Builds the dashboard when dist/web is missing or older than web/ (a fresh clone, or an edit), once
 * per test run, before the browser tests load it.
 */
export function ensureDashboardBuilt(): void {
  const index = `${ROOT}dist/web/index.html`;
  if (existsSync(index) && statSync(index).mtimeMs >= newestChange(`${ROOT}web`)) return;
  const built = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
    // The production build users get from `npm start`: under vitest NODE_ENV is "test", which vite
    // would keep, and React would then be its development build (each effect run twice).
    env: { ...process.env, NODE_ENV: 'production' },
    // A build that hangs fails the run, saying so, instead of holding it until CI's own limit.
    timeout: 300_000,
  });
  if (built.status !== 0) throw new Error(`vite build failed${built.error ? `: ${built.error.message}` : ''}`);
}
