import type { ChangeFeed } from '../../db/change-feed.js';

/** The topic a provider credential's changes (its API key, base URL…) are announced on; the key is its id. */
export const PROVIDER_CREDENTIAL_TOPIC = 'provider-credential';

/** What can be a provider credential's id (`pcr_` and base32): anything else is refused without a query. */
const CREDENTIAL_ID = /^pcr_[0-9a-z]{1,60}$/;

export interface RetellCredentialKeysOptions {
  /** The API key of the Retell credential with this id, whatever its organization; undefined if there is none. */
  load: (credentialId: string) => Promise<string | undefined>;
  feed: ChangeFeed;
  /** How long a key (or its absence) is trusted without hearing of a change, default 60 s: a backstop. */
  ttlMs?: number;
  /** Credentials kept at most, default 10,000; the oldest go first. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * The API keys of Retell credentials by id, opened, in memory: the key a webhook sent to
 * `?credential=<id>` must be signed with, known before its body is read (decision 0029). A changed
 * credential is announced on the change feed and forgotten by every process; while the feed cannot
 * hear the other processes, nothing is served from here. Loads of one id at once are shared.
 */
export function createRetellCredentialKeys({
  load,
  feed,
  ttlMs = 60_000,
  maxEntries = 10_000,
  now = Date.now,
}: RetellCredentialKeysOptions) {
  const keys = new Map<string, { apiKey: string | undefined; expiresAt: number }>();
  const loading = new Map<string, { generation: number; done: Promise<string | undefined> }>();
  // Bumped by every change heard: a load that overlapped one may have read the old key.
  let generation = 0;
  feed.subscribe(
    PROVIDER_CREDENTIAL_TOPIC,
    (credentialId) => {
      generation++;
      keys.delete(credentialId);
    },
    () => {
      generation++;
      keys.clear();
    },
  );

  function remember(credentialId: string, apiKey: string | undefined): void {
    keys.delete(credentialId);
    keys.set(credentialId, { apiKey, expiresAt: now() + ttlMs });
    while (keys.size > maxEntries) keys.delete(keys.keys().next().value as string);
  }

  return {
    /** The credential's API key; undefined when no Retell credential has this id. */
    async apiKeyOf(credentialId: string): Promise<string | undefined> {
      if (!CREDENTIAL_ID.test(credentialId)) return undefined;
      const known = keys.get(credentialId);
      if (known && known.expiresAt > now() && feed.live) return known.apiKey;
      const inFlight = loading.get(credentialId);
      if (inFlight && inFlight.generation === generation) return inFlight.done;
      const startedAt = generation;
      const done = load(credentialId)
        .then((apiKey) => {
          if (startedAt === generation && feed.live) remember(credentialId, apiKey);
          return apiKey;
        })
        .finally(() => {
          if (loading.get(credentialId)?.done === done) loading.delete(credentialId);
        });
      loading.set(credentialId, { generation: startedAt, done });
      return done;
    },
  };
}

export type RetellCredentialKeys = ReturnType<typeof createRetellCredentialKeys>;
