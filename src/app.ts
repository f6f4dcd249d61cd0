import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import fastifyCookie from '@fastify/cookie';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createAgentsModule } from './agents/agents.module.js';
import { createAuthModule } from './auth/auth.module.js';
import { refuseCrossSiteWrites } from './auth/cross-site.js';
import { createCallsModule } from './calls/calls.module.js';
import { createCallsRepository } from './calls/calls.repository.js';
import { createCampaignsModule } from './campaigns/campaigns.module.js';
import { createDirectClickToCall } from './click-to-call/click-to-call.direct.js';
import { createClickToCallModule } from './click-to-call/click-to-call.module.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { createDeliveriesModule } from './deliveries/deliveries.module.js';
import { createDeliveriesRepository } from './deliveries/deliveries.repository.js';
import { WEBHOOK_CONNECT_TIMEOUT_MS } from './deliveries/delivery-attempt.js';
import { registerApiErrorHandler, validationError } from './errors.js';
import { healthRoutes } from './health/health.routes.js';
import { HTTP_LIMITS, type HttpLimits, httpServerOptions } from './http-limits.js';
import { createIntegrationsModule } from './integrations/integrations.module.js';
import { startJobs } from './jobs/catalog.js';
import { createSecretBox } from './lib/crypto.js';
import { forwardRef } from './lib/forward-ref.js';
import { newId } from './lib/ids.js';
import { jsonProblem } from './lib/json-guard.js';
import { createLazyCompilers, type LazyCompilers } from './lib/lazy-compilers.js';
import { LOG_REDACTION } from './lib/log-redaction.js';
import { createOutboundClient } from './lib/outbound-http.js';
import { createRefusalPacer } from './lib/refusal-pacer.js';
import { readRequestJson } from './lib/request-json.js';
import { RequestLogController } from './lib/request-log.js';
import { closeUnusedConnectionsOnClose } from './lib/unused-connections.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { metricsRoutes, recordHttpRequests } from './metrics/metrics.routes.js';
import {
  collectDocumentedRoutes,
  type DocumentedRoute,
  openApiRoutes,
  registerSharedSchemas,
  SHARED_SCHEMAS,
} from './openapi.js';
import { createPhoneNumbersModule } from './phone-numbers/phone-numbers.module.js';
import { createProviderCredentialsModule } from './provider-credentials/provider-credentials.module.js';
import type { ProviderRegistryService } from './providers/provider-port.js';
import { createProvidersModule, type ProviderChanges } from './providers/providers.module.js';
import { createRetentionModule } from './retention/retention.module.js';
import type { DomainModule, SharedDeps } from './shared-deps.js';
import { createStatsModule } from './stats/stats.module.js';
import { createSuppressionsModule } from './suppressions/suppressions.module.js';
import { createToolsModule } from './tools/tools.module.js';
import { registerDashboard } from './web.js';

/** How long after the server is ready the modules load ahead what first requests need (`DomainModule.warm`). */
const WARM_AFTER_READY_MS = 1000;

export interface AppDeps {
  config: Config;
  database: Database;
  masterKey: Buffer;
  /** Fastify's logger option; default: pino at `config.logLevel` with secrets redacted. */
  logger?: FastifyServerOptions['logger'];
  /** Log lines dropped since start because standard output fell behind (`serve`'s JSON log, decision 0074). */
  droppedLogLines?: () => number;
  /**
   * How customers' hostnames resolve, both when a URL is saved and when every outbound request
   * connects; default: the system's resolver. Tests give one that answers differently each time
   * (DNS rebinding).
   */
  resolveHost?: (hostname: string) => Promise<string[]>;
  /** The HTTP server's limits, default `HTTP_LIMITS` with `config.maxConnections`; tests shorten them. */
  httpLimits?: Partial<HttpLimits>;
  /** The campaigns' clock (calling windows, pacing, re-dials), default the system's; tests give a fake one. */
  now?: () => Date;
  /**
   * Whether this process alone uses `database`: true for `serve` on the embedded database, whose data
   * dir it has locked. Then the simulated calls a stopped process left open are closed at start, since
   * no other process can be playing them (decision 0085). Default false: on a shared PostgreSQL, or
   * where a test builds several apps over one database, another may; there a process holds a lease
   * while it plays simulated calls, and a worker closes the calls of a lease that lapsed (0094).
   */
  soleProcess?: boolean;
}

export interface RouteEntry {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for the tests that check each one (tenancy, OpenAPI coverage). */
    routeTable: RouteEntry[];
    /** Compiles every schema not compiled yet (they are compiled on first use); throws the first error. */
    compileAllSchemas(): void;
    /** Click-to-call requests answered before Fastify so far (decision 0105), for the tests that compare the two. */
    directClickToCalls(): number;
  }
}

/**
 * Validators for bodies never coerce types ("42" is not 42); query strings do, as URLs carry text.
 * Each is compiled on its route's first request (`src/lib/lazy-compilers.ts`).
 */
function validatorCompiler(lazy: LazyCompilers) {
  // The shared schemas (`ToolField`) are referred to by name: both validators know them.
  const strict = addFormats.default(
    new Ajv.default({ allErrors: true, coerceTypes: false, strict: false, schemas: SHARED_SCHEMAS }),
  );
  const lenient = addFormats.default(
    new Ajv.default({ allErrors: true, coerceTypes: 'array', strict: false, schemas: SHARED_SCHEMAS }),
  );
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    lazy.validator(() => (httpPart === 'body' ? strict : lenient).compile(schema));
}

/** JSON bodies of the management API, read as `readRequestJson` reads them (each refusal says why). */
function parseJsonBody(_request: unknown, body: string | Buffer, done: (error: Error | null, value?: unknown) => void) {
  try {
    done(null, readRequestJson(body.toString()));
  } catch (error) {
    done(error as Error);
  }
}

/**
 * The composition root: the HTTP server's settings, then every domain's module built once from its
 * explicit dependencies, in dependency order, their routes registered and their periodic jobs run
 * (unless `config.role` is `api`), and the shutdown order. Adding a domain is one module here.
 */
export async function buildApp({
  config,
  database,
  masterKey,
  logger,
  droppedLogLines,
  resolveHost: resolveHostOption,
  httpLimits: httpLimitsOption,
  now: nowOption,
  soleProcess = false,
}: AppDeps): Promise<FastifyInstance> {
  const httpLimits: HttpLimits = { ...HTTP_LIMITS, maxConnections: config.maxConnections, ...httpLimitsOption };
  const lazyCompilers = createLazyCompilers();
  const requestLog = new RequestLogController();
  const app = Fastify({
    logger: logger ?? { level: config.logLevel, ...LOG_REDACTION },
    // Response serializers are compiled on a route's first use, not at every start (decision 0034).
    schemaController: { compilersFactory: { buildSerializer: lazyCompilers.buildSerializer } },
    // One line per request, quieter for probes and refused floods (src/lib/request-log.ts).
    logController: requestLog,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    trustProxy: config.trustedProxies,
    ...httpServerOptions(httpLimits),
  });
  app.server.maxConnections = httpLimits.maxConnections;
  for (const deprecation of config.deprecations) app.log.warn(deprecation);
  app.setValidatorCompiler(validatorCompiler(lazyCompilers));
  app.decorate('compileAllSchemas', lazyCompilers.compileAll);
  closeUnusedConnectionsOnClose(app);
  // Refusals of callers without credentials are answered late; on close, at once (decision 0029).
  const refusals = createRefusalPacer({ delayMs: httpLimits.refusalDelayMs, maxHeld: httpLimits.maxHeldRefusals });
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    refusals.flush();
    done();
  });
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routeTable.push({ method, url: route.url });
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  registerApiErrorHandler(app);
  // Before every route: the routes GET /openapi.json describes, learnt as they are added.
  const documentedRoutes = collectDocumentedRoutes(app);
  registerSharedSchemas(app);
  // A callback hook, not an async one: it runs on every request, and a promise per request shows.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // No answer is sniffed into another type (a JSON body rendered as HTML); decision 0030.
    reply.header('x-content-type-options', 'nosniff');
    done();
  });

  const { db } = database;
  const deliveriesRepository = createDeliveriesRepository(db, { disableAfterSeconds: config.autoDisableSeconds });
  const callsRepository = createCallsRepository(db);
  // One registry per app: its instruments are handed to the services that record into them.
  const metrics = createMetrics({
    deliveryQueue: () => deliveriesRepository.queueStats(),
    openCalls: () => callsRepository.openCounts(),
    onError: (err) => app.log.warn({ err }, 'metrics: could not read the database'),
    droppedLogLines,
  });
  recordHttpRequests(app, metrics);
  const resolveHost =
    resolveHostOption ??
    (async (hostname: string) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address));
  const shared: SharedDeps = {
    config,
    database,
    db,
    secretBox: createSecretBox(masterKey),
    metrics,
    log: app.log,
    resolveHost,
    // One pooled, address-guarded HTTP client for every request sent to a customer's endpoint.
    outbound: createOutboundClient({ allowPrivateNetworks: config.allowPrivateNetworks, resolve: resolveHost }),
    // Webhooks get their own pool, with the contract's 5 s to connect.
    webhookOutbound: createOutboundClient({
      allowPrivateNetworks: config.allowPrivateNetworks,
      resolve: resolveHost,
      connectTimeoutMs: WEBHOOK_CONNECT_TIMEOUT_MS,
    }),
  };

  // Each domain is built once, from what it needs; the order is that of their dependencies. Two
  // domains are told about changes by one built later (publishing): a forward reference.
  const providerSync = forwardRef<ProviderChanges>('providers');
  const providerRegistry = forwardRef<ProviderRegistryService>('the provider registry');
  const { auth, module: authModule } = createAuthModule(shared);
  const { providerCredentials, module: providerCredentialsModule } = createProviderCredentialsModule(shared, {
    auth,
    rulesOf: (provider) =>
      providerRegistry().real(provider)?.credentialRules ?? { webhookSecret: null, signsWithApiKey: false },
    onChanged: (credentialId, change) => providerSync().credentialChanged(credentialId, change),
    now: nowOption,
  });
  const { tools, module: toolsModule } = createToolsModule(shared, {
    auth,
    onToolChanged: (toolId) => providerSync().toolChanged(toolId),
  });
  const { agents, module: agentsModule } = createAgentsModule(shared, {
    auth,
    missingToolIds: (organizationId, ids) => tools.missingIds(organizationId, ids),
    credentialProviderOf: (organizationId, id) => providerCredentials.providerOf(organizationId, id),
    // What the agent's provider would refuse, checked when it is saved (the simulator refuses nothing).
    agentProblems: (provider, agent) => providerRegistry().real(provider)?.agentProblems(agent) ?? [],
  });
  const { integrations, module: integrationsModule } = createIntegrationsModule(shared, {
    auth,
    agentNameOf: (organizationId, agentId) => agents.nameOf(organizationId, agentId),
  });
  const deliveries = createDeliveriesModule(shared, { auth, repository: deliveriesRepository, integrations });
  const {
    calls,
    inboundCalls,
    module: callsModule,
  } = createCallsModule(shared, {
    auth,
    repository: callsRepository,
    tools,
    deliveries: deliveries.deliveries,
    onCallsEnded: () => deliveries.announceDue(),
    soleProcess,
  });
  const providers = createProvidersModule(shared, {
    auth,
    agents,
    calls,
    inboundCalls,
    tools,
    providerCredentials,
    soleProcess,
  });
  providerSync.set(providers.changes);
  providerRegistry.set(providers.registry);
  const { module: suppressionsModule } = createSuppressionsModule(shared, { auth });
  const { clickToCall, module: clickToCallModule } = createClickToCallModule(shared, {
    auth,
    agents,
    calls,
    providers: providers.registry.callers(),
    refusals,
  });

  const { module: phoneNumbersModule } = createPhoneNumbersModule(shared, {
    auth,
    registry: providers.registry,
    agentOf: (organizationId, agentId) => agents.get(organizationId, agentId),
    credentialOf: (organizationId, id) => providerCredentials.open(organizationId, id),
    inboundCalls,
    calls,
  });

  const { module: statsModule } = createStatsModule(shared, { auth });

  // After click to call and the do-not-call list: the scheduler places calls through them.
  const { module: campaignsModule } = createCampaignsModule(shared, {
    auth,
    agents,
    clickToCall,
    calls,
    now: nowOption,
  });

  // SWITCHBOARD_RETENTION_DAYS: old calls removed by a worker job; no routes (decision 0052).
  const { module: retentionModule } = createRetentionModule(shared);

  // The order of the management API's routes is that of the OpenAPI document's paths.
  const modules: DomainModule[] = [
    authModule,
    providerCredentialsModule,
    agentsModule,
    providers.module,
    phoneNumbersModule,
    toolsModule,
    integrationsModule,
    callsModule,
    suppressionsModule,
    statsModule,
    campaignsModule,
    retentionModule,
    deliveries.module,
    clickToCallModule,
  ];
  await registerModules(app, { config, database, metrics, modules, documentedRoutes });
  let direct: ReturnType<typeof createDirectClickToCall> | undefined;
  if (config.role !== 'worker') {
    // The common click-to-call request is answered before Fastify, as the route would (decision 0105).
    direct = createDirectClickToCall({
      clickToCall,
      agents,
      refusals,
      metrics,
      log: app.log,
      requestLog,
      closing: () => closing,
      trustedProxies: config.trustedProxies,
    });
    answerFirst(app.server, direct.handle);
  }
  app.decorate('directClickToCalls', () => direct?.answered() ?? 0);

  // Shutdown order (docs/architecture.md): periodic jobs stop first, so no new work starts; the
  // simulator's calls stop; tool records and call ends still batched are written (their ends queue
  // deliveries); the delivery worker stops claiming and its attempts finish or go back; then the
  // outbound pools close. The database closes after the app, in src/server.ts.
  const jobs =
    config.role === 'api'
      ? undefined
      : startJobs(
          modules.flatMap((m) => m.jobs ?? []),
          (err, job) => app.log.error({ err }, `${job.name} failed`),
        );
  if (config.role !== 'api') {
    app.addHook('onReady', async () => {
      for (const module of modules) module.start?.();
    });
  }
  // After the start's own work (and `serve`'s heap settling): the first requests may wait for what
  // is loaded lazily, so it is loaded ahead, once (decision 0093).
  let warming: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    warming = setTimeout(() => {
      for (const module of modules)
        module.warm?.().catch((err) => app.log.warn({ err }, 'could not load ahead what the first requests need'));
    }, WARM_AFTER_READY_MS);
    warming.unref();
  });
  const shutdownOrder = [campaignsModule, providers.module, toolsModule, callsModule, deliveries.module];
  app.addHook('onClose', async () => {
    clearTimeout(warming);
    await jobs?.stop();
    for (const module of shutdownOrder) await module.close?.();
    await shared.outbound.close();
    await shared.webhookOutbound.close();
  });
  return app;
}

/**
 * Puts `handle` before Fastify on the HTTP server: a request it does not take (it answers false,
 * having read nothing) goes on to Fastify as if `handle` were not there.
 */
function answerFirst(server: Server, handle: (req: IncomingMessage, res: ServerResponse) => boolean): void {
  const fastify = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!handle(req, res)) for (const listener of fastify) listener.call(server, req, res);
  });
}

/**
 * Registers every module's routes: health and metrics for every role; for the API roles, the
 * OpenAPI document, the management API in its own scope (only it reads cookies, so the
 * click-to-call path does not pay for them), the public endpoints and the dashboard.
 */
async function registerModules(
  app: FastifyInstance,
  {
    config,
    database,
    metrics,
    modules,
    documentedRoutes,
  }: {
    config: Config;
    database: Database;
    metrics: Metrics;
    modules: DomainModule[];
    documentedRoutes: readonly DocumentedRoute[];
  },
): Promise<void> {
  await app.register(healthRoutes, { database });
  await app.register(metricsRoutes, { metrics });
  // A worker serves health and metrics only (on SWITCHBOARD_WORKER_PORT, when set): it takes no API
  // traffic, and its counters (delivery attempts, provider sync) can only be scraped from itself.
  if (config.role === 'worker') return;
  await app.register(openApiRoutes, { routes: documentedRoutes });
  await app.register(async (managementApi) => {
    // Before the schemas: a string PostgreSQL cannot store (NUL, a lone surrogate) anywhere in the
    // body, the path or the query would fail its query, and a body nested thousands deep would
    // overflow the validator's stack: both answered 500 (src/lib/json-guard.ts).
    managementApi.addHook('preValidation', (request, _reply, done) => {
      const problem =
        jsonProblem(request.body) ?? jsonProblem(request.params, 'params') ?? jsonProblem(request.query, 'query');
      done(problem && validationError([problem]));
    });
    await managementApi.register(fastifyCookie);
    managementApi.addHook('onRequest', refuseCrossSiteWrites);
    for (const routes of modules.flatMap((m) => m.managementRoutes ?? [])) await managementApi.register(routes);
  });
  for (const routes of modules.flatMap((m) => m.publicRoutes ?? [])) await app.register(routes);
  await registerDashboard(app);
}
