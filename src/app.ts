import { lookup as dnsLookup } from 'node:dns/promises';
import fastifyCookie from '@fastify/cookie';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import secureJsonParse from 'secure-json-parse';
import { AGENT_TOPIC, createAgentCache, TokenLookupsBusyError } from './agents/agent-cache.js';
import { createAgentsRepository } from './agents/agents.repository.js';
import { agentsRoutes } from './agents/agents.routes.js';
import { createAgentsService } from './agents/agents.service.js';
import { createAuthRepository } from './auth/auth.repository.js';
import { authRoutes } from './auth/auth.routes.js';
import { createAuthService } from './auth/auth.service.js';
import { refuseCrossSiteWrites } from './auth/cross-site.js';
import { createCallsRepository } from './calls/calls.repository.js';
import { callsRoutes } from './calls/calls.routes.js';
import { createCallsService } from './calls/calls.service.js';
import { createClickToCallRepository } from './click-to-call/click-to-call.repository.js';
import { clickToCallRoutes } from './click-to-call/click-to-call.routes.js';
import { createClickToCallService } from './click-to-call/click-to-call.service.js';
import { testCallRoutes } from './click-to-call/test-call.routes.js';
import type { Config } from './config.js';
import { type Database, isDatabaseUnreachable } from './db/client.js';
import { createDeliveriesRepository } from './deliveries/deliveries.repository.js';
import { deliveriesRoutes } from './deliveries/deliveries.routes.js';
import { createDeliveriesService } from './deliveries/deliveries.service.js';
import { RETRY_SCHEDULE_SECONDS, WEBHOOK_CONNECT_TIMEOUT_MS } from './deliveries/delivery-attempt.js';
import { createDeliveryWorker } from './deliveries/delivery-worker.js';
import { createDueSignal } from './deliveries/due-signal.js';
import { registerApiErrorHandler, validationError } from './errors.js';
import { healthRoutes } from './health/health.routes.js';
import { HTTP_LIMITS, type HttpLimits, httpServerOptions } from './http-limits.js';
import { createIntegrationsRepository } from './integrations/integrations.repository.js';
import { integrationsRoutes } from './integrations/integrations.routes.js';
import { createIntegrationsService } from './integrations/integrations.service.js';
import { runPeriodically } from './jobs/periodic.js';
import { createSecretBox } from './lib/crypto.js';
import { newId } from './lib/ids.js';
import { jsonProblem } from './lib/json-guard.js';
import { createLazyCompilers, type LazyCompilers } from './lib/lazy-compilers.js';
import { createLogThrottle } from './lib/log-throttle.js';
import { loggableError } from './lib/loggable-error.js';
import { createOutboundClient } from './lib/outbound-http.js';
import { createRefusalPacer } from './lib/refusal-pacer.js';
import { RequestLogController } from './lib/request-log.js';
import { closeUnusedConnectionsOnClose } from './lib/unused-connections.js';
import { createMetrics } from './metrics/metrics.js';
import { metricsRoutes, recordHttpRequests } from './metrics/metrics.routes.js';
import { openApiRoutes, registerOpenApi, registerSharedSchemas, SHARED_SCHEMAS } from './openapi.js';
import { createProviderCredentialsRepository } from './provider-credentials/provider-credentials.repository.js';
import { providerCredentialsRoutes } from './provider-credentials/provider-credentials.routes.js';
import {
  createProviderCredentialsService,
  type OpenedProviderCredential,
} from './provider-credentials/provider-credentials.service.js';
import { createProviderSync } from './providers/provider-sync.js';
import { createProviderSyncRepository } from './providers/provider-sync.repository.js';
import { providerToolsRoutes } from './providers/provider-tools.routes.js';
import { createProviderToolsService } from './providers/provider-tools.service.js';
import { providerWebhooksRoutes } from './providers/provider-webhooks.routes.js';
import { createRetellCredentialKeys, PROVIDER_CREDENTIAL_TOPIC } from './providers/retell/retell-credential-keys.js';
import { createRetellProvider } from './providers/retell/retell-provider.js';
import { createRetellWebhooks } from './providers/retell/retell-webhook.js';
import { createSimulator } from './providers/simulator/simulator.js';
import { createVapiProvider } from './providers/vapi/vapi-provider.js';
import { createVapiWebhook } from './providers/vapi/vapi-webhook.js';
import { createVapiWebhookSecrets } from './providers/vapi/vapi-webhook-secrets.js';
import { createToolCallCache } from './tools/tool-call-cache.js';
import { compileAiSchema } from './tools/tool-definition.js';
import { createToolsRepository } from './tools/tools.repository.js';
import { toolsRoutes } from './tools/tools.routes.js';
import { createToolsService } from './tools/tools.service.js';
import { dashboardDir, dashboardRoutes } from './web.js';

export interface AppDeps {
  config: Config;
  database: Database;
  masterKey: Buffer;
  /** Fastify's logger option; default: pino at `config.logLevel` with secrets redacted. */
  logger?: FastifyServerOptions['logger'];
  /**
   * How customers' hostnames resolve, both when a URL is saved and when every outbound request
   * connects; default: the system's resolver. Tests give one that answers differently each time
   * (DNS rebinding).
   */
  resolveHost?: (hostname: string) => Promise<string[]>;
  /** The HTTP server's limits, default `HTTP_LIMITS` with `config.maxConnections`; tests shorten them. */
  httpLimits?: Partial<HttpLimits>;
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
  }
}

/** Header and body paths that may carry a secret; pino replaces them before a line is written. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["api-key"]',
  'req.headers.signature',
  'res.headers["set-cookie"]',
  '*.apiKey',
  '*.apiSecret',
  '*.apiToken',
  '*.webhookSecret',
  '*.password',
];

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

/**
 * JSON bodies of the management API, parsed so that each refusal says why: not JSON at all, or a
 * key that could pollute prototypes (`__proto__`, `constructor.prototype`). An empty body is none.
 */
function parseJsonBody(_request: unknown, body: string | Buffer, done: (error: Error | null, value?: unknown) => void) {
  const text = body.toString();
  // No body at all is no body, whatever the content type says: routes that need one say so by
  // their schema ("must be object"), and actions such as rotate-secret need none.
  if (text.trim() === '') return done(null, undefined);
  try {
    done(null, secureJsonParse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
  } catch (error) {
    const forbidden = error instanceof SyntaxError && /prototype/i.test(error.message);
    done(
      validationError([
        {
          path: '$',
          message: forbidden
            ? 'The body contains a forbidden key (__proto__ or constructor.prototype)'
            : `The body is not valid JSON: ${(error as Error).message}`,
        },
      ]),
    );
  }
}

/**
 * The composition root: builds every service once from its explicit dependencies and registers
 * every route. Background work (the duration sweep) runs unless `config.role` is `api`.
 */
export async function buildApp({
  config,
  database,
  masterKey,
  logger,
  resolveHost: resolveHostOption,
  httpLimits: httpLimitsOption,
}: AppDeps): Promise<FastifyInstance> {
  const httpLimits: HttpLimits = { ...HTTP_LIMITS, maxConnections: config.maxConnections, ...httpLimitsOption };
  const lazyCompilers = createLazyCompilers();
  const app = Fastify({
    logger: logger ?? { level: config.logLevel, redact: REDACTED_PATHS },
    // Response serializers are compiled on a route's first use, not at every start (decision 0034).
    schemaController: { compilersFactory: { buildSerializer: lazyCompilers.buildSerializer } },
    // One line per request, quieter for probes and refused floods (src/lib/request-log.ts).
    logController: new RequestLogController(),
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
  app.addHook('preClose', (done) => {
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
  // Before every route: the generator learns the routes as they are added (GET /openapi.json).
  await registerOpenApi(app);
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
  });
  recordHttpRequests(app, metrics);
  // How customers' hostnames resolve when a URL is saved (checked against the private-address guard).
  const resolveHost =
    resolveHostOption ??
    (async (hostname: string) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address));
  const secretBox = createSecretBox(masterKey);
  const auth = createAuthService({
    repository: createAuthRepository(db),
    signup: config.signup,
    signupLimitPerHour: config.signupLimitPerHour,
  });
  // One pooled, address-guarded HTTP client for every request sent to a customer's endpoint.
  const outbound = createOutboundClient({ allowPrivateNetworks: config.allowPrivateNetworks, resolve: resolveHost });
  const tools = createToolsService({
    repository: createToolsRepository(db),
    secretBox,
    outbound,
    allowPrivateNetworks: config.allowPrivateNetworks,
    changes: database.changes,
    cache: createToolCallCache({ feed: database.changes }),
    onError: (err, callId) => app.log.error({ err: loggableError(err), callId }, 'could not record a tool invocation'),
    onToolChanged: (toolId) => providerSync.toolChanged(toolId),
    onToolRun: metrics.tools.ran,
  });
  const providerCredentials = createProviderCredentialsService({
    repository: createProviderCredentialsRepository(db),
    secretBox,
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolve: resolveHost,
    onChanged: async (credentialId) => {
      await providerSync.credentialChanged(credentialId);
      // Every process forgets the credential's key (the Retell webhooks' key cache).
      await database.changes.publish(PROVIDER_CREDENTIAL_TOPIC, credentialId);
    },
  });
  // Agents on real providers are published in the background; the providers' SDKs send through the
  // guarded client, like every request to an address a customer chose.
  const credentialOf = (organizationId: string, id: string) => providerCredentials.open(organizationId, id);
  // The SDK is loaded with the first Vapi request: a server without Vapi agents does not pay for it.
  const vapiClient = async (credential: OpenedProviderCredential) => {
    const { VapiClient } = await import('@vapi-ai/server-sdk');
    return new VapiClient({
      token: credential.apiKey,
      ...(credential.baseUrl ? { baseUrl: credential.baseUrl } : {}),
      fetch: outbound.fetch,
      maxRetries: 0,
      timeoutInSeconds: 15,
    });
  };
  const retellClient = async (credential: OpenedProviderCredential) => {
    const { default: Retell } = await import('retell-sdk');
    return new Retell({
      apiKey: credential.apiKey,
      ...(credential.baseUrl ? { baseURL: credential.baseUrl } : {}),
      fetch: outbound.fetch,
      maxRetries: 0,
      timeout: 15_000,
    });
  };
  const providerSyncRepository = createProviderSyncRepository(db);
  const providerSync = createProviderSync({
    repository: providerSyncRepository,
    credentialOf,
    vapiClient,
    retellClient,
    aiSchemaOf: (tool) => compileAiSchema(tool.parameters) as Record<string, unknown>,
    publicUrl: config.publicUrl,
    onError: (err, agentId) => app.log.error({ err, agentId }, 'publishing to the provider failed to record'),
    onPublished: (agentId) => database.changes.publish(AGENT_TOPIC, agentId),
    onFailed: ({ agentId, provider, deleted, error, retryInSeconds }) => {
      metrics.providerSync.failed(provider);
      const action = deleted
        ? `could not remove a deleted agent from ${provider}`
        : `could not publish an agent to ${provider}`;
      app.log.warn({ agentId, provider, error, retryInSeconds }, action);
    },
  });
  const agentsRepository = createAgentsRepository(db);
  const agents = createAgentsService({
    repository: agentsRepository,
    changes: database.changes,
    // Unknown click-to-call tokens cost no query (decision 0029).
    cache: createAgentCache({
      feed: database.changes,
      loadTokenHashes: () => agentsRepository.listTokenHashes(),
      sharedDatabase: database.engine === 'postgres',
    }),
    secretBox,
    publicUrl: config.publicUrl,
    missingToolIds: (organizationId, ids) => tools.missingIds(organizationId, ids),
    credentialProviderOf: (organizationId, id) => providerCredentials.providerOf(organizationId, id),
  });
  const providerTools = createProviderToolsService({
    agentRefs: (organizationId, agentId) => agents.providerRefs(organizationId, agentId),
    credentialOf,
    vapiClient,
    retellClient,
    createTool: (organizationId, input) => tools.create(organizationId, input),
    attachTools: async (organizationId, agentId, toolIds) => {
      await agents.update(organizationId, agentId, { toolIds });
    },
    linkPublished: (credentialId, published) => providerSyncRepository.savePublishedTools(credentialId, published),
  });
  // Webhooks get their own pool, with the contract's 5 s to connect.
  const webhookOutbound = createOutboundClient({
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolve: resolveHost,
    connectTimeoutMs: WEBHOOK_CONNECT_TIMEOUT_MS,
  });
  const integrations = createIntegrationsService({
    repository: createIntegrationsRepository(db),
    secretBox,
    agentNameOf: (organizationId, agentId) => agents.nameOf(organizationId, agentId),
    outbound: webhookOutbound,
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolve: resolveHost,
  });
  const deliveryWorker =
    config.role === 'api'
      ? undefined
      : createDeliveryWorker({
          repository: deliveriesRepository,
          outbound: webhookOutbound,
          secretBox,
          retryScheduleSeconds: config.retryScheduleSeconds ?? RETRY_SCHEDULE_SECONDS,
          shutdownGraceMs: config.shutdownGraceMs,
          leaseSeconds: config.deliveryLeaseSeconds,
          onError: (err) => app.log.error({ err }, 'the webhook delivery worker hit an error'),
          onAttempted: metrics.deliveries.attempted,
        });
  const due = createDueSignal(database.changes, (err) => app.log.warn({ err }, 'could not announce due deliveries'));
  if (deliveryWorker) due.subscribe(() => deliveryWorker.wake());
  const deliveries = createDeliveriesService({
    repository: deliveriesRepository,
    integrationOf: (organizationId, id) => integrations.find(organizationId, id),
    wake: () => due.announce(),
  });
  const calls = createCallsService({
    repository: callsRepository,
    onError: (err, callId) =>
      app.log.error({ err: loggableError(err), callId }, 'could not record the provider call id'),
    onEndRefused: (err, callId) =>
      app.log.error(
        { err: loggableError(err), callId },
        'the database refused the call\'s end: ended as FAILED, endedReason "record_failed"',
      ),
    toolInvocationsOf: (organizationId, callIds) => tools.invocationsOf(organizationId, callIds),
    toolCalls: tools,
    deliveriesOf: (organizationId, callIds) => deliveries.ofCalls(organizationId, callIds),
    onCallsEnded: () => due.announce(),
    onCallEnded: metrics.calls.ended,
  });
  const simulator = createSimulator({
    onEvent: (event) => calls.applyEvent(event),
    invokeTool: (call) => tools.invokeDuringCall(call),
    onError: (err, callId) =>
      app.log.error({ err: loggableError(err), callId }, 'could not record a simulated call event'),
  });
  const logRepeatedFailure = createLogThrottle();
  const clickToCallRepository = createClickToCallRepository(db);
  const clickToCall = createClickToCallService({
    agents,
    calls,
    repository: clickToCallRepository,
    providers: {
      simulator,
      vapi: createVapiProvider({ credentialOf, vapiClient }),
      retell: createRetellProvider({ credentialOf, retellClient }),
    },
    onError: (err, context) => {
      // A failure that repeats on every request (the database away or saturated, above all) is
      // logged once per 10 s and kind, with the count left out, not a stack per request.
      const database = isDatabaseUnreachable(err) || err instanceof TokenLookupsBusyError;
      const kind = database ? 'database' : String((err as { code?: unknown })?.code ?? (err as Error)?.name);
      logRepeatedFailure(`click-to-call ${context} ${kind}`, (suppressed) =>
        app.log.error(
          { err: loggableError(err), suppressed },
          `click-to-call: failed ${context}${database ? ': the database is unreachable or saturated' : ''} (logged once per 10 s)`,
        ),
      );
    },
    onAnswered: metrics.clickToCall.answered,
  });

  await app.register(healthRoutes, { database });
  await app.register(metricsRoutes, { metrics });
  // A worker serves health and metrics only (on SWITCHBOARD_WORKER_PORT, when set): it takes no API
  // traffic, and its counters (delivery attempts, provider sync) can only be scraped from itself.
  if (config.role !== 'worker') {
    await app.register(openApiRoutes);
    // The management API in its own scope: only it reads cookies, so the click-to-call path does not pay for them.
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
      await managementApi.register(authRoutes, { auth });
      await managementApi.register(providerCredentialsRoutes, { auth, credentials: providerCredentials });
      await managementApi.register(agentsRoutes, { auth, agents });
      await managementApi.register(providerToolsRoutes, { auth, providerTools });
      await managementApi.register(toolsRoutes, { auth, tools });
      await managementApi.register(integrationsRoutes, { auth, integrations });
      await managementApi.register(callsRoutes, { auth, calls });
      await managementApi.register(deliveriesRoutes, { auth, deliveries });
      await managementApi.register(testCallRoutes, { auth, clickToCall });
    });
    await app.register(clickToCallRoutes, { clickToCall, refusals });
    const dashboard = dashboardDir();
    if (dashboard) await app.register(dashboardRoutes, { dir: dashboard });
    else app.log.warn('the dashboard is not built (npm run build): / serves nothing');
    await app.register(providerWebhooksRoutes, {
      vapiSecrets: createVapiWebhookSecrets({ load: () => providerCredentials.webhookSecrets('vapi') }),
      vapi: createVapiWebhook({
        callContext: (callId) => calls.providerContext(callId),
        credentialOf,
        applyEvent: (event) => calls.applyEvent(event),
        invokeTool: (call) => tools.invokeDuringCall(call),
      }),
      retell: createRetellWebhooks({
        callContext: (callId) => calls.providerContext(callId),
        credentialOf,
        applyEvent: (event) => calls.applyEvent(event),
        provisionalEnd: (event, graceSeconds) => calls.provisionalEnd(event, graceSeconds),
        analysisGraceSeconds: config.analysisGraceSeconds,
        toolNameOf: async (organizationId, toolId) =>
          (await tools.get(organizationId, toolId).catch(() => undefined))?.name,
        invokeTool: (call) => tools.invokeDuringCall(call),
        // Its agent was published before the URLs named the credential: published again (decision 0029).
        publishedWithoutCredential: (callId) =>
          providerSyncRepository
            .markPublishedBeforeCall(callId)
            .catch((err) => app.log.error({ err, callId }, 'could not mark the agent to publish again')),
      }),
      retellKeys: createRetellCredentialKeys({
        load: (credentialId) => providerCredentials.retellApiKey(credentialId),
        feed: database.changes,
      }),
    });
  }

  if (deliveryWorker) {
    app.addHook('onReady', async () => deliveryWorker.start());
  }
  if (config.role !== 'api') {
    const publishing = runPeriodically(
      async () => {
        while ((await providerSync.publishDue()) > 0) {}
      },
      config.publishIntervalMs,
      (err) => app.log.error({ err }, 'publishing agents to their providers failed'),
    );
    app.addHook('onClose', () => publishing.stop());
    const sweep = runPeriodically(
      async () => {
        const closed = await calls.closeOverdueCalls();
        if (closed > 0) app.log.info({ closed }, 'closed calls past their maximum duration');
        await clickToCallRepository.pruneExpired(new Date());
        await auth.pruneLoginFailures();
      },
      config.sweepIntervalMs,
      (err) => app.log.error({ err }, 'the duration sweep failed'),
    );
    app.addHook('onClose', () => sweep.stop());
  }
  app.addHook('onClose', async () => {
    await simulator.close();
    await tools.drain();
    await calls.drain();
    // After the calls: their last ends queue deliveries. Claiming stops; attempts under way finish or go back.
    await deliveryWorker?.stop();
    await outbound.close();
    await webhookOutbound.close();
  });
  return app;
}
