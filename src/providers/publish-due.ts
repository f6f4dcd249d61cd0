import type { ChangeFeed } from '../db/change-feed.js';

/**
 * The change-feed topic that wakes the publishing jobs (agents, phone numbers): an agent or a
 * number is due at its provider now. Announced after the write that makes it due, by whichever
 * process made it; the jobs otherwise sleep until their next due time (decision 0086).
 */
export const PUBLISH_DUE_TOPIC = 'publish_due';

/** Tells every worker that something is due for publishing now. */
export const announcePublishDue = (changes: ChangeFeed): Promise<void> => changes.publish(PUBLISH_DUE_TOPIC, '');

/** Runs `wake` whenever something may be due for publishing: on each announcement, and when announcements may have been missed. */
export const onPublishDue = (changes: ChangeFeed, wake: () => void): void =>
  changes.subscribe(PUBLISH_DUE_TOPIC, wake, wake);
