import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { answersHealthz, until } from './helpers/wait.js';

// What `switchboard serve` writes, for a person at a terminal and for a log collector, and the
// warning a failed publish to a provider leaves (decision 0034).

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = path.join(ROOT, 'src/cli.ts');
// tsx from this project, whatever the working directory the server is started in.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-logs-'));
  dirs.push(dir);
  return dir;
}

/**
 * `switchboard serve` started from `cwd` with `env` (and, with `terminal`, under `script`, so that its
 * standard output is a terminal); resolves with everything it wrote once `until` holds of it.
 */
async function serve(options: { cwd: string; env: Record<string, string>; terminal?: boolean }) {
  const port = await freePort();
  const command = [process.execPath, '--import', TSX, CLI, 'serve'];
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    TERM: 'xterm',
    PORT: String(port),
    HOST: '127.0.0.1',
    ...options.env,
  };
  const quoted = command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  const child = options.terminal
    ? spawn('script', ['-qfec', quoted, '/dev/null'], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(command[0] as string, command.slice(1), { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const url = `http://127.0.0.1:${port}`;
  await until('the server to answer', () => answersHealthz(url), 45_000);
  return {
    url,
    output: () => output,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes are what it strips
const withoutColours = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').replaceAll('\r', '');

describe('the log of `switchboard serve`', () => {
  it('without a terminal: JSON lines, the ready line among them, saying where the dashboard and the data are', async () => {
    const dataDir = tempDir();
    const server = await serve({ cwd: ROOT, env: { SWITCHBOARD_DATA_DIR: dataDir, LOG_LEVEL: 'info' } });
    await fetch(`${server.url}/v1/agents`);
    await server.stop();
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '');
    const records = lines.map((line) => JSON.parse(line) as { msg: string; level: number });
    expect(records.map((record) => record.msg)).toContain(
      `Switchboard ready — dashboard ${server.url} — data ${dataDir} (embedded PostgreSQL)`,
    );
  }, 60_000);

  it('at a terminal: one readable line per event, and the ready line with the data dir as the user knows it', async () => {
    if (spawnSync('script', ['--version'], { timeout: 10_000 }).status !== 0) {
      if (process.env.CI) throw new Error('`script` (util-linux) is needed to give the server a terminal');
      return;
    }
    const cwd = tempDir();
    const server = await serve({ cwd, env: { LOG_LEVEL: 'info' }, terminal: true });
    await fetch(`${server.url}/v1/agents`);
    await until('the request to be logged', async () => (server.output().includes('/v1/agents') ? true : undefined));
    await server.stop();
    const lines = withoutColours(server.output())
      .split('\n')
      .filter((line) => line.trim() !== '');
    expect(lines.some((line) => line.trimStart().startsWith('{'))).toBe(false);
    const ready = lines.filter((line) => line.includes('Switchboard ready'));
    expect(ready).toHaveLength(1);
    expect(ready[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: /);
    expect(ready[0]).toContain(
      `Switchboard ready — dashboard ${server.url} — data ./.switchboard (embedded PostgreSQL)`,
    );
    // A request is one line, when it is answered, saying what it was and how it ended.
    const requests = lines.filter((line) => line.includes('/v1/agents'));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatch(/INFO: GET \/v1\/agents → 401 in \d+ ms$/);
  }, 60_000);

  it('SWITCHBOARD_LOG_FORMAT chooses either form whatever standard output is', async () => {
    const { loadConfig } = await import('../src/config.js');
    const { resolveLogFormat, serviceLogger } = await import('../src/logging.js');
    const formatOf = (value: string | undefined, terminal: boolean) =>
      resolveLogFormat(loadConfig({ SWITCHBOARD_LOG_FORMAT: value }).logFormat, terminal);
    expect([formatOf(undefined, true), formatOf(undefined, false)]).toEqual(['pretty', 'json']);
    expect([formatOf('json', true), formatOf('pretty', false)]).toEqual(['json', 'pretty']);
    expect(() => formatOf('yaml', true)).toThrow(/SWITCHBOARD_LOG_FORMAT must be one of auto, json, pretty/);
    // The readable form, as the server's logger writes it.
    const written: string[] = [];
    const logger = await serviceLogger({ level: 'info', format: 'pretty', write: (l) => written.push(l) });
    const stream = (logger as { stream: { write(line: string): void } }).stream;
    const line = (record: object) => JSON.stringify({ level: 30, time: Date.now(), pid: 1, hostname: 'h', ...record });
    stream.write(line({ reqId: 'req_1', req: { method: 'POST', url: '/v1/tools' }, msg: 'incoming request' }));
    stream.write(line({ reqId: 'req_1', res: { statusCode: 201 }, responseTime: 12.4, msg: 'request completed' }));
    stream.write(line({ level: 40, agentId: 'agt_1', msg: 'could not publish an agent to vapi' }));
    expect(written.map(withoutColours)).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: POST \/v1\/tools → 201 in 12 ms\n$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] WARN: could not publish an agent to vapi \{"agentId":"agt_1"\}\n$/),
    ]);
  });

  it('names a PostgreSQL database without its password', async () => {
    const { readyLine } = await import('../src/server.js');
    const { loadConfig } = await import('../src/config.js');
    const config = loadConfig({
      DATABASE_URL: 'postgres://app:s3cret@db.internal:5432/switchboard?sslmode=require&password=other',
      SWITCHBOARD_MASTER_KEY: Buffer.alloc(32).toString('base64'),
      PORT: '8080',
    });
    const line = readyLine(config, 'http://127.0.0.1:8080');
    expect(line).toBe(
      'Switchboard ready — dashboard http://127.0.0.1:8080 — database postgres://app:***@db.internal:5432/switchboard (PostgreSQL)',
    );
    expect(line).not.toContain('s3cret');
  });
});

describe('a publish to a provider that fails', () => {
  let t: TestApp;
  let org: Org;
  let vapi: FakeVapi;
  let retell: FakeRetell;
  const logged: Record<string, any>[] = [];

  beforeAll(async () => {
    [vapi, retell] = await Promise.all([startFakeVapi(), startFakeRetell()]);
    const stream = { write: (line: string) => logged.push(JSON.parse(line)) };
    t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' }, undefined, {
      logger: { level: 'warn', stream },
    });
    org = await t.signup();
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([vapi?.close(), retell?.close()]);
  });

  async function agentOn(provider: 'vapi' | 'retell') {
    const fake = provider === 'vapi' ? vapi : retell;
    const credential = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: {
        provider,
        name: `${provider} account`,
        apiKey: fake.apiKey,
        ...(provider === 'vapi' ? { webhookSecret: 'vapi_hook_secret_long_enough' } : {}),
        baseUrl: fake.url,
      },
    });
    expect(credential.status).toBe(201);
    fake.failNext(100);
    const agent = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: `On ${provider}`,
        type: 'click_to_call',
        provider,
        providerCredentialId: credential.body.id,
        fromNumber: '+14155550100',
      },
    });
    expect(agent.status).toBe(201);
    return agent.body.id as string;
  }

  it.each([
    ['vapi', 'Internal server error (fake)'],
    ['retell', 'Internal error (fake)'],
  ] as const)('on %s logs a warning with the agent id and the provider’s error', async (provider, providerError) => {
    const agentId = await agentOn(provider);
    const warning = await until(`a warning about ${agentId}`, async () =>
      logged.find((line) => line.agentId === agentId && line.level === 40),
    );
    expect(warning.msg).toBe(`could not publish an agent to ${provider}`);
    expect(warning.provider).toBe(provider);
    expect(warning.error).toContain('500');
    expect(warning.error).toContain(providerError);
    expect(warning.retryInSeconds).toBe(5);
    // The agent says the same, once the failure is recorded: the warning is logged just before.
    await expect
      .poll(
        async () => (await t.request('GET', `/v1/agents/${agentId}`, { headers: org.auth })).body.providerSync.error,
      )
      .toBe(warning.error);
  });
});
