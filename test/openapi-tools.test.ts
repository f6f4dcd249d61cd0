import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';

/**
 * Issue 16: the served document must be accepted by the standard tools, with no internet: the
 * OpenAPI validator @apidevtools/swagger-parser and Redocly's linter (its recommended rules).
 */

const run = promisify(execFile);
let t: TestApp;
let spec: any;
let dir: string;

beforeAll(async () => {
  t = await startTestApp();
  spec = (await t.request('GET', '/openapi.json')).body;
  dir = mkdtempSync(path.join(tmpdir(), 'switchboard-openapi-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

describe('GET /openapi.json and the standard tools', () => {
  it('passes @apidevtools/swagger-parser validate and dereference', async () => {
    await expect(SwaggerParser.validate(structuredClone(spec))).resolves.toBeDefined();
    const dereferenced: any = await SwaggerParser.dereference(structuredClone(spec));
    expect(
      dereferenced.paths['/v1/agents'].post.responses['201'].content['application/json'].schema.properties.id,
    ).toEqual(expect.objectContaining({ type: 'string' }));
  });

  it('passes @redocly/cli lint (recommended rules) with no error', async () => {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(spec));
    writeFileSync(path.join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
    const bin = path.resolve('node_modules/.bin/redocly');
    const result = await run(bin, ['lint', file, '--format=stylish'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    }).catch((error: { stdout: string; stderr: string }) => error);
    const output = `${result.stdout}\n${result.stderr}`;
    expect(output, output).toMatch(/Woohoo! Your API description is valid|validated with \d+ warnings?/);
    expect(output).not.toMatch(/\d+ errors?/);
  }, 60_000);
});
