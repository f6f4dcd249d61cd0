import type { ChangeFeed } from '../db/change-feed.js';
import { createFeedCache } from '../db/feed-cache.js';
import type { OpenedProviderCredential } from './provider-credentials.service.js';

/** The topic a provider credential's changes (its keys, base URL, removal) are announced on; the key is its id. */
export const PROVIDER_CREDENTIAL_TOPIC = 'provider-credential';

/** A credential opened, with the organization it belongs to. */
export interface OwnedCredential {
  organizationId: string;
  credential: OpenedProviderCredential;
}

/**
 * Opened provider credentials by id, in memory: each Vapi webhook and each call placed on a provider
 * needs its credential, and reading and decrypting it every time was a statement and two AES-GCM
 * decryptions per report (docs/scaling.md). A change (an update, a rotated secret, a removal) is
 * announced on the change feed and forgotten by every process; while the feed cannot hear the other
 * processes, every read goes to the database (src/db/feed-cache.ts).
 */
export function createOpenedCredentials({
  load,
  feed,
}: {
  /** The credential with this id, whatever its organization, opened; undefined if there is none. */
  load: (id: string) => Promise<OwnedCredential | undefined>;
  feed: ChangeFeed;
}) {
  const cache = createFeedCache({ topic: PROVIDER_CREDENTIAL_TOPIC, feed, load });
  return {
    /** The organization's credential with this id, opened; undefined when the organization has none. */
    async open(organizationId: string, id: string): Promise<OpenedProviderCredential | undefined> {
      const owned = await cache.get(id);
      return owned?.organizationId === organizationId ? owned.credential : undefined;
    },
  };
}
