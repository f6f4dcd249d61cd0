import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { passwordProblem } from './auth/password-policy.js';
import { signClickToCall } from './click-to-call/request-signature.js';
import { ConfigError, loadConfig, switchboardUrl } from './config.js';
import { DataDirLockedError } from './db/data-dir.js';

/**
 * The server and the database are loaded only by the commands that use them: `sign`, `call` and
 * `--help` start in about a fifth of the time (0.15 s against 0.8 s), which matters in scripts.
 */
const loadServer = () => import('./server.js');

function fail(message: string, code = 1): never {
  process.stderr.write(`switchboard: ${message}\n`);
  process.exit(code);
}

function readStdin(): Buffer {
  try {
    return readFileSync(0);
  } catch {
    return Buffer.alloc(0);
  }
}

/** What scripts can rely on: the same codes for every command. */
const EXIT_CODES = `
Exit codes:
  0  done (for call: the request was accepted)
  1  refused or failed (call: any answer other than 2xx; serve: could not start)
  2  usage: an unknown command or option, a missing or invalid value
  3  conflict (org create: the email is already registered)
  4  unreachable (call: no answer from the server)`;

const program = new Command()
  .name('switchboard')
  .description('Run AI voice agents: click to call, tools during calls, signed call-outcome webhooks.')
  .showHelpAfterError()
  .addHelpText('after', EXIT_CODES)
  // Commander exits 1 on a usage error, the code this CLI keeps for refusals: usage errors are 2.
  // Set before the commands are added, so each of them inherits it.
  .exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

program
  .command('serve')
  .description('Start the HTTP API, the dashboard and the background workers (SWITCHBOARD_ROLE splits them)')
  .action(async () => {
    const config = loadConfig();
    const [{ startServer }, { settleHeapAfterStart }] = await Promise.all([loadServer(), import('./lib/heap.js')]);
    // A person at a terminal reads one line per event; anything else (a pipe, a file, a log
    // collector) gets JSON lines.
    const server = await startServer(config, { stdoutIsTerminal: process.stdout.isTTY === true });
    settleHeapAfterStart(config);
    const stop = (signal: string) => {
      server.app.log.info({ signal }, 'shutting down');
      server.close().then(
        () => process.exit(0),
        (error) => {
          server.app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });

program
  .command('migrate')
  .description('Apply pending database migrations and exit')
  .action(async () => {
    const { openConfiguredDatabase } = await loadServer();
    const opened = await openConfiguredDatabase(loadConfig());
    await opened.close();
    process.stdout.write('migrations are up to date\n');
  });

const stats = program.command('stats').description('The statistics behind GET /v1/stats');
stats
  .command('rollup')
  .description(
    'Roll up every quarter hour of calls that is due, at once, and exit: for a database that held a large history before it first met the rollup (docs/scaling.md)',
  )
  .action(async () => {
    const config = loadConfig();
    const [{ openConfiguredDatabase }, { createStatsRepository }, { createStatsService }] = await Promise.all([
      loadServer(),
      import('./stats/stats.repository.js'),
      import('./stats/stats.service.js'),
    ]);
    const opened = await openConfiguredDatabase(config);
    try {
      const service = createStatsService({ repository: createStatsRepository(opened.database.db) });
      const started = Date.now();
      let printed = started;
      const result = await service.catchUp({
        // A third of the database timeout: a step holds the deliveries' state changes back while it runs.
        stepBudgetMs: config.databaseUrl ? config.databaseTimeoutMs / 3 : 500,
        onStep: (step) => {
          if (Date.now() - printed < 1000) return;
          printed = Date.now();
          process.stderr.write(
            `rolled up to ${step.rolledUntil} (${step.steps} steps; the last, of up to ${step.stepCalls} calls, took ${step.tookMs} ms)\n`,
          );
        },
      });
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const retried =
        result.retried > 0 ? ` (${result.retried} cancelled at the database timeout, each tried again smaller)` : '';
      const stopped =
        result.rolledUntil !== undefined && result.rolledUntil < result.until
          ? `; stopped before ${result.until} at a quarter hour with a call still open: the server's job goes on once it ends`
          : '';
      process.stdout.write(
        `stats rolled up to ${result.rolledUntil}: ${result.steps} step${result.steps === 1 ? '' : 's'} in ${seconds} s${retried}${stopped}\n`,
      );
    } finally {
      await opened.close();
    }
  });

const org = program.command('org').description('Manage organizations');
org
  .command('create')
  .description('Create an organization with its first user; prints JSON with its apiKey')
  .requiredOption('--name <name>', 'organization name')
  .requiredOption('--email <email>', "the first user's email")
  .requiredOption(
    '--password <password>',
    "the first user's password (10+ characters, not one of the most common passwords)",
  )
  .action(async (options: { name: string; email: string; password: string }) => {
    // As POST /v1/signup: a name of spaces is refused, and the name is stored trimmed (by the service).
    if (options.name.trim() === '') fail('--name must contain a character other than spaces', 2);
    const problem = await passwordProblem(options.password);
    if (problem) fail(`--password ${problem}`, 2);
    const config = loadConfig();
    const [{ openConfiguredDatabase }, { createAuthRepository }, { createAuthService }] = await Promise.all([
      loadServer(),
      import('./auth/auth.repository.js'),
      import('./auth/auth.service.js'),
    ]);
    const opened = await openConfiguredDatabase(config);
    try {
      // An operator creates organizations even when public sign-up is closed, and is not limited per hour.
      const auth = createAuthService({
        repository: createAuthRepository(opened.database.db),
        signup: 'open',
        signupLimitPerHour: config.signupLimitPerHour,
      });
      const result = await auth.signup({
        organization: options.name,
        email: options.email,
        password: options.password,
      });
      if (!result.ok) fail(`an account with the email ${options.email} already exists`, 3);
      process.stdout.write(
        `${JSON.stringify({ organization: result.organization, user: result.user, apiKey: result.apiKey }, null, 2)}\n`,
      );
    } finally {
      await opened.close();
    }
  });

program
  .command('sign')
  .description('Print the lowercase hex HMAC-SHA256 of standard input, keyed with --secret')
  .requiredOption('--secret <secret>', "the agent's API secret")
  .option('--timestamp <seconds>', 'sign "<seconds>." followed by standard input, for the signature-timestamp header')
  .action((options: { secret: string; timestamp?: string }) => {
    process.stdout.write(`${signClickToCall(options.secret, readStdin(), options.timestamp)}\n`);
  });

function collectVariable(value: string, previous: Record<string, string>): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('expected name=value');
  return Object.fromEntries([...Object.entries(previous), [value.slice(0, at), value.slice(at + 1)]]);
}

program
  .command('call')
  .description('Sign and send a click-to-call request; prints the JSON answer (exit 0 on success, 1 otherwise)')
  .option('--url <url>', 'the Switchboard base URL (default SWITCHBOARD_URL or http://127.0.0.1:3000)')
  .requiredOption('--token <token>', "the agent's API token")
  .option('--secret <secret>', "the agent's API secret (omit only when signature verification is disabled)")
  .requiredOption('--phone <phone>', 'the number to call, E.164 (+14155550123)')
  .option('--var <name=value>', 'a call variable; repeat for more', collectVariable, {})
  .option('--idempotency-key <key>', 'makes a retried request return the first answer')
  .action(
    async (options: {
      url?: string;
      token: string;
      secret?: string;
      phone: string;
      var: Record<string, string>;
      idempotencyKey?: string;
    }) => {
      const base = options.url ? options.url.replace(/\/+$/, '') : switchboardUrl();
      const body = JSON.stringify({ phone: options.phone, variables: options.var });
      const headers: Record<string, string> = { 'content-type': 'application/json', 'api-key': options.token };
      if (options.secret) {
        // Timestamped (decision 0031): accepted whether or not the agent requires signature-timestamp.
        const timestamp = String(Math.floor(Date.now() / 1000));
        headers['signature-timestamp'] = timestamp;
        headers.signature = signClickToCall(options.secret, body, timestamp);
      }
      if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
      let response: Response;
      try {
        response = await fetch(`${base}/api/click-to-call`, { method: 'POST', headers, body });
      } catch (error) {
        fail(`could not reach ${base}: ${error instanceof Error ? error.message : String(error)}`, 4);
      }
      process.stdout.write(`${await response.text()}\n`);
      process.exitCode = response.ok ? 0 : 1;
    },
  );

// Every command's --help ends with the same exit codes.
const withHelp = (command: Command): void => {
  for (const sub of command.commands) {
    sub.addHelpText('after', EXIT_CODES);
    withHelp(sub);
  }
};
withHelp(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) fail(error.message);
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
});
