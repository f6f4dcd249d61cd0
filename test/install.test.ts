import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm install` on a supported Node version says nothing to worry about: no package refuses this
// Node (EBADENGINE) and no dependency's install script is left unreviewed (decision 0034). CI runs
// this file on each Node version it tests.

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const npm = (args: string[]) => spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

describe('npm install', () => {
  it(`warns about no engine on Node ${process.versions.node}`, () => {
    // A dry run checks every locked package's engines against this Node, as an install does, and changes nothing.
    const run = npm(['install', '--dry-run', '--no-audit', '--no-fund', '--ignore-scripts']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('EBADENGINE');
  }, 120_000);

  it('leaves no dependency install script unreviewed (allowScripts)', () => {
    const run = npm(['install-scripts', 'ls']);
    // npm before 11.x has no install-script approvals, and so no warning about them either.
    if (run.status !== 0 && /Unknown command/i.test(run.stderr + run.stdout)) return;
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('No packages with unreviewed install scripts');
  }, 120_000);

  it('says which Node versions are supported: 22 and 24, and 20 while it still works', () => {
    const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
    expect(manifest.engines.node).toBe('^20.19.0 || ^22.12.0 || >=24.0.0');
  });
});
