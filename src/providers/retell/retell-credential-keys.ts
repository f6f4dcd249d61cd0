import type { ChangeFeed } from '../../db/change-feed.js';
import { createFeedCache } from '../../db/feed-cache.js';
import { PROVIDER_CREDENTIAL_TOPIC } from '../../provider-credentials/opened-credentials.js';

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
export function createRetellCredentialKeys({ load, feed, ...options }: RetellCredentialKeysOptions) {
  const keys = createFeedCache({ topic: PROVIDER_CREDENTIAL_TOPIC, feed, load, ...options });
  return {
    /** The credential's API key; undefined when no Retell credential has this id. */
    async apiKeyOf(credentialId: string): Promise<string | undefined> {
      if (!CREDENTIAL_ID.test(credentialId)) return undefined;
      return keys.get(credentialId);
    },
  };
}

export type RetellCredentialKeys = ReturnType<typeof createRetellCredentialKeys>;
