import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { onTestFailed } from 'vitest';
import { hmacSha256Hex } from '../../src/lib/crypto.js';
import { onFreePort } from './app.js';
import { answersHealthz } from './wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Runs the CLI from source (tsx), as `switchboard <args>`, with `env` added to a clean environment. */
export function runCli(args: string[], env: Record<string, string> = {}, input?: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdin.end(input ?? '');
  // 'close', not 'exit': 'exit' may come before the last of the child's output has been read (a
  // busy machine: `org create --help` once exited 0 with its stdout still empty here).
  const exited = new Promise<number | string>((resolve) =>
    child.on('close', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** `switchboard serve` in its own process, ready once /healthz answers. */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  return onFreePort(async (port) => {
    const run = runCli(['serve'], {
      PORT: String(port),
      HOST: '127.0.0.1',
      SWITCHBOARD_SWEEP_INTERVAL_MS: '200',
      SWITCHBOARD_SIGNUP_LIMIT_PER_HOUR: '100000',
      ...env,
    });
    const url = `http://127.0.0.1:${port}`;
    const exitedWith = await readyOrExited(run, 'server', () => answersHealthz(url));
    return serverProcess(url, run, exitedWith);
  });
}

/**
 * A JSON request to a server process: `body` is sent as JSON (with its content type), and the
 * answer's body is parsed (null when empty).
 */
export async function requestJson(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const method = init.method ?? 'GET';
  const response = await fetch(url, {
    method,
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  }).catch((error: Error) => {
    // undici says only "fetch failed"; the cause says whether the process was gone or the socket cut.
    const cause = error.cause as { code?: string; message?: string } | undefined;
    throw new Error(`${method} ${url}: ${error.message} (${cause?.code ?? cause?.message ?? 'no cause'})`, {
      cause: error,
    });
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as any) : null };
}

/** A new organization on a server process (`POST /v1/signup`): its `authorization` header. */
export async function signupProcess(url: string, organization: string): Promise<Record<string, string>> {
  const signup = await requestJson(`${url}/v1/signup`, {
    method: 'POST',
    body: { organization, email: `p-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse' },
  });
  return { authorization: `Bearer ${signup.body.apiKey}` };
}

/**
 * A click-to-call agent created on a server process from `body`, sending its outcomes to `hookUrl`
 * (one webhook integration): the agent as created, and its credentials.
 */
export async function agentWithIntegration(
  url: string,
  auth: Record<string, string>,
  body: Record<string, unknown>,
  hookUrl: string,
) {
  const agent = await requestJson(`${url}/v1/agents`, {
    method: 'POST',
    headers: auth,
    body: { type: 'click_to_call', ...body },
  });
  await requestJson(`${url}/v1/agents/${agent.body.id}/integrations`, {
    method: 'POST',
    headers: auth,
    body: { url: hookUrl },
  });
  const creds = await requestJson(`${url}/v1/agents/${agent.body.id}/credentials`, { headers: auth });
  return { agent: agent.body, creds: creds.body as { apiToken: string; apiSecret: string } };
}

/** A signed `POST /api/click-to-call` to a server process, with the agent's token and secret. */
export async function clickToCallProcess(
  url: string,
  creds: { apiToken: string; apiSecret: string },
  body: Record<string, unknown>,
) {
  const raw = JSON.stringify(body);
  const response = await fetch(`${url}/api/click-to-call`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'api-key': creds.apiToken,
      signature: hmacSha256Hex(creds.apiSecret, raw),
    },
    body: raw,
  });
  return { status: response.status, body: (await response.json()) as { callId?: string; code?: string } };
}

/**
 * `switchboard serve` as a worker (`SWITCHBOARD_ROLE=worker`), ready once it logs that it started;
 * `url` is its health and metrics port (`SWITCHBOARD_WORKER_PORT`).
 */
export function startWorkerProcess(env: Record<string, string>): Promise<ServerProcess> {
  return onFreePort(async (port) => {
    const run = runCli(['serve'], {
      SWITCHBOARD_SWEEP_INTERVAL_MS: '200',
      LOG_LEVEL: 'info',
      ...env,
      SWITCHBOARD_ROLE: 'worker',
      SWITCHBOARD_WORKER_PORT: String(port),
    });
    const exitedWith = await readyOrExited(run, 'worker', async () => run.stdout().includes('worker started'));
    return serverProcess(`http://127.0.0.1:${port}`, run, exitedWith);
  });
}

type Run = ReturnType<typeof runCli>;

/**
 * Waits (45 s at most) until `ready` holds for a process `runCli` started. It throws if the process
 * exits first, with the code `EADDRINUSE` when its port was taken, so that `onFreePort` tries another.
 * Resolves with a getter of the exit code, undefined while the process runs.
 */
async function readyOrExited(run: Run, what: string, ready: () => Promise<boolean>) {
  let exitedWith: number | string | undefined;
  run.exited.then((code) => {
    exitedWith = code;
  });
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (exitedWith !== undefined) {
      const output = `${run.stderr()}${run.stdout()}`;
      throw Object.assign(new Error(`${what} exited with ${exitedWith}: ${output}`), {
        code: output.includes('EADDRINUSE') ? 'EADDRINUSE' : undefined,
      });
    }
    if (await ready()) break;
    if (Date.now() > deadline) {
      run.child.kill('SIGKILL');
      throw new Error(`${what} did not start: ${run.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return () => exitedWith;
}

function serverProcess(url: string, run: Run, exitedWith: () => number | string | undefined): ServerProcess {
  return {
    url,
    child: run.child,
    exited: run.exited,
    output: () => run.stdout() + run.stderr(),
    async stop(signal = 'SIGTERM') {
      if (exitedWith() === undefined) run.child.kill(signal);
      return run.exited;
    },
  };
}

/**
 * Called in a test: if it fails, prints how each of `processes` fared (its exit code or signal, or
 * still running) and the last lines it wrote, so that a failure of a request to one says why.
 */
export function describeProcessesOnFailure(processes: ServerProcess[]): void {
  onTestFailed(() => {
    for (const process of processes) {
      const fate = process.child.exitCode ?? process.child.signalCode ?? 'still running';
      console.error(
        `${process.url} (pid ${process.child.pid}, ${fate}), its last output:\n${process.output().slice(-4000)}`,
      );
    }
  });
}
