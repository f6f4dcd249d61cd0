import { sha256Hex } from '../../lib/crypto.js';

export interface VapiWebhookSecretsOptions {
  /** Every Vapi credential's webhook secret, opened (all organizations), and each replaced one while it counts (decision 0096). */
  load: () => Promise<string[]>;
  /** Loads start at least this long apart, default 1 s: a flood of wrong secrets costs one load a second. */
  minReloadIntervalMs?: number;
  now?: () => number;
}

/**
 * Whether an `x-vapi-secret` is any Vapi credential's webhook secret, answered before the body is
 * read (decision 0029): the secret alone names no call, so this is a filter, and the webhook still
 * checks it against the credential of the call the body names. Kept as SHA-256 digests in memory. A
 * secret not in the set is looked up again by a load that starts after the request arrived (one
 * shared load, at most one a second), so a credential made or changed a moment ago, by any process,
 * is found. A secret changed away stays in the set until the next load, which only lets its webhooks
 * on to the full check.
 */
export function createVapiWebhookSecrets({
  load,
  minReloadIntervalMs = 1000,
  now = Date.now,
}: VapiWebhookSecretsOptions) {
  let known = new Set<string>();
  let latest: { startedAt: number; done: Promise<void> } | undefined;
  let scheduled: Promise<void> | undefined;

  function startLoad(): Promise<void> {
    const startedAt = now();
    const done = load().then((secrets) => {
      known = new Set(secrets.map((secret) => sha256Hex(secret)));
    });
    latest = { startedAt, done };
    return done;
  }

  /** A load that started after `since`, finished. */
  function loadAfter(since: number): Promise<void> {
    if (latest && latest.startedAt > since) return latest.done;
    if (!scheduled) {
      // At least 1 ms later, so the load surely starts after the request arrived.
      const wait = Math.max(1, latest ? latest.startedAt + minReloadIntervalMs - now() : 0);
      scheduled = new Promise<void>((resolve) => setTimeout(resolve, wait).unref()).then(() => {
        scheduled = undefined;
        return startLoad();
      });
    }
    return scheduled;
  }

  return {
    async isKnown(secret: string): Promise<boolean> {
      const arrivedAt = now();
      const digest = sha256Hex(secret);
      if (known.has(digest)) return true;
      await loadAfter(arrivedAt);
      return known.has(digest);
    },
  };
}

export type VapiWebhookSecrets = ReturnType<typeof createVapiWebhookSecrets>;
