import { randomUUID } from 'node:crypto';
import type { ChangeFeed } from '../db/change-feed.js';

export const DELIVERIES_DUE_TOPIC = 'deliveries_due';

/**
 * Tells delivery workers that deliveries became due, so they claim them now rather than at their
 * next poll. Announcements that come while one is being published are folded into one more: under
 * load this is a few NOTIFYs a second, not one per call. Each names the process that made it (the
 * notification's key), so that its own, coming back through the feed, wakes nobody: its workers
 * heard it at once, and a second wake cost a second claim that found nothing (decision 0113).
 */
export function createDueSignal(feed: ChangeFeed, onError: (error: unknown) => void) {
  const local: (() => void)[] = [];
  const self = randomUUID();
  let publishing = false;
  let again = false;
  const publish = (): void => {
    publishing = true;
    feed
      .publish(DELIVERIES_DUE_TOPIC, self)
      .catch(onError)
      .finally(() => {
        if (again) {
          again = false;
          publish();
        } else publishing = false;
      });
  };
  return {
    announce(): void {
      // This process's workers at once; the others through the feed.
      for (const onDue of local) onDue();
      if (publishing) again = true;
      else publish();
    },
    /** Announces at once, resolved once published: for a process about to close its database. */
    async announceNow(): Promise<void> {
      for (const onDue of local) onDue();
      await feed.publish(DELIVERIES_DUE_TOPIC, self).catch(onError);
    },
    /**
     * `onDue` on every announcement, this process's once and the others' through the feed, and
     * whenever announcements may have been missed. An announcement of an earlier version (its key
     * empty) is another process's.
     */
    subscribe(onDue: () => void): void {
      local.push(onDue);
      feed.subscribe(DELIVERIES_DUE_TOPIC, (from) => from !== self && onDue(), onDue);
    },
  };
}
