import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { PeriodicJob } from './jobs/catalog.js';
import type { SecretBox } from './lib/crypto.js';
import type { OutboundClient } from './lib/outbound-http.js';
import type { Metrics } from './metrics/metrics.js';

/** What every domain module may use: built once by the composition root (src/app.ts). */
export interface SharedDeps {
  config: Config;
  database: Database;
  db: Database['db'];
  secretBox: SecretBox;
  metrics: Metrics;
  log: FastifyBaseLogger;
  /** How customers' hostnames resolve when a URL is saved (checked against the private-address guard). */
  resolveHost: (hostname: string) => Promise<string[]>;
  /** The pooled, address-guarded client for every request to a customer's endpoint or a provider. */
  outbound: OutboundClient;
  /** Webhook deliveries' own pool, with the contract's 5 s to connect. */
  webhookOutbound: OutboundClient;
}

/**
 * What a domain contributes to the app (docs/architecture.md, "Adding a domain"): its routes, in
 * the management API's scope (`/v1`: cookies, the cross-site check, the JSON guard) or at the root
 * (endpoints that authenticate their own way), its periodic jobs (worker role), and what it must
 * do at shutdown.
 */
export interface DomainModule {
  managementRoutes?: FastifyPluginAsync[];
  publicRoutes?: FastifyPluginAsync[];
  jobs?: PeriodicJob[];
  /** Runs once the server is ready (worker role): long-running work such as the delivery worker. */
  start?: () => void;
  /**
   * Runs once, a moment after the server is ready, in every role: loads ahead what the first request
   * of some kind would otherwise wait for (decision 0093). A failure is logged; nothing depends on it.
   */
  warm?: () => Promise<void>;
  /** Finishes or hands back the work under way; called in the shutdown order of src/app.ts. */
  close?: () => Promise<void>;
}
