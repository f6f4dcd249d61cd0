import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let org: Org;
let dir: string;
beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  dir = mkdtempSync(path.join(tmpdir(), 'switchboard-examples-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { timeout: 10_000 }).status === 0;
}

// Asynchronous: the server under test runs in this process and must keep answering.
const exec = async (file: string, args: string[]) =>
  (await promisify(execFile)(file, args, { encoding: 'utf8' })).stdout;

/** Each example, pasted as shown, must place a call: the proof that it signs the body correctly. */
describe('the ready-to-paste examples shown with the credentials', () => {
  const run: Record<string, (code: string) => Promise<string>> = {
    node: async (code) => {
      const file = path.join(dir, 'call.mjs');
      writeFileSync(file, code);
      return exec(process.execPath, [file]);
    },
    python: async (code) => {
      const file = path.join(dir, 'call.py');
      writeFileSync(file, code);
      return exec('python3', [file]);
    },
    curl: (code) => exec('bash', ['-c', code]),
  };
  const needs: Record<string, string[]> = { node: [], python: ['python3'], curl: ['curl', 'openssl'] };

  // The examples sign in the timestamped form: it must pass whether or not the agent requires it.
  const cases = Object.keys(run).flatMap((language) => [
    [language, false],
    [language, true],
  ]) as [string, boolean][];
  it.each(cases)('the %s example places a call (requireSignatureTimestamp %s)', async (language, required) => {
    const missing = needs[language]!.filter((command) => !has(command));
    if (missing.length > 0 && !process.env.CI) {
      console.warn(`skipping the ${language} example: ${missing.join(', ')} not installed`);
      return;
    }
    const agent = await t.createAgent(org, { firstMessage: 'Hi {{name}}', requireSignatureTimestamp: required });
    const creds = await t.credentials(org, agent.id);
    const code = creds.examples[language]!;
    expect(creds.instructions).toContain(code);
    expect(code).toContain('signature-timestamp');
    expect(creds.instructions).toContain(
      required ? 'This agent requires signature-timestamp' : 'also accepts the signature of the body alone',
    );
    const output = await run[language]!(code);
    expect(output).toContain('"success":true');
    const calls = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
    expect(calls.body.data).toHaveLength(1);
    expect(calls.body.data[0].variables).toEqual({ name: 'Ada' });
  });
});
