import { randomBytes } from 'node:crypto';

/** What the lease writes: one row per playing process (`simulator_leases`, decision 0094). */
export interface SimulatorLeaseRepository {
  /** Writes or renews the row: held until the database's `now()` plus `seconds`. */
  holdLease(playerId: string, seconds: number): Promise<void>;
  /** Removes the row (the process stops). */
  releaseLease(playerId: string): Promise<void>;
}

export interface SimulatorLeaseOptions {
  repository: SimulatorLeaseRepository;
  /** `SWITCHBOARD_SIMULATOR_LEASE_SECONDS`: how long the row holds once written. */
  seconds: number;
  /** Told of a write that failed; the calls go on (their deadline is then their backstop, as before 0094). */
  onError: (error: unknown) => void;
  /** Milliseconds, for tests. */
  clock?: () => number;
}

/**
 * On a shared PostgreSQL, a process tells the others it is still playing its simulated calls
 * (decision 0094). It names itself in each call's provider call id (`playerId`), holds a row of
 * `simulator_leases` while it has calls under way, and renews it every third of its length. A
 * process killed outright renews nothing: a worker finds the row past its time and closes the
 * calls the process was playing. With no call under way nothing is written; the row lapses.
 */
export interface SimulatorLease {
  /** This process's name in its calls' provider call ids: 16 hex digits, no `_`. */
  readonly playerId: string;
  /**
   * A call is about to start: undefined while the lease is held with a renewal's room left (no
   * wait), else a promise that settles once it is written again (never rejects: a failed write is
   * told, and the call starts anyway). Each must be matched by one `done()`.
   */
  acquire(): Promise<void> | undefined;
  /** A call acquired before has recorded its end, or will never (the simulator gives it up). */
  done(): void;
  /** Stops renewing and removes the row. */
  close(): Promise<void>;
}

/** A process's name in its simulated calls' provider call ids: 16 hex digits, no `_`, drawn at its start. */
export const newPlayerId = (): string => randomBytes(8).toString('hex');

export function createSimulatorLease({
  repository,
  seconds,
  onError,
  clock = Date.now,
}: SimulatorLeaseOptions): SimulatorLease {
  const playerId = newPlayerId();
  const lengthMs = seconds * 1000;
  const renewEveryMs = Math.max(1, Math.floor(lengthMs / 3));
  let playing = 0;
  /** Local time before which a call may start without a write: the lease holds at least one more renewal past it. */
  let startsUntil = Number.NEGATIVE_INFINITY;
  let written = false;
  let closed = false;
  let writing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const renew = (): Promise<void> => {
    writing ??= (async () => {
      const startedAt = clock();
      try {
        await repository.holdLease(playerId, seconds);
        written = true;
        // Measured from before the write: the row holds from the database's now(), which is later.
        startsUntil = startedAt + lengthMs - renewEveryMs;
      } catch (error) {
        onError(error);
      } finally {
        writing = undefined;
      }
    })();
    return writing;
  };

  /**
   * The next renewal: a third of the lease after the last write, and never later than the moment
   * calls stop starting without a write (a call started just before it, with none under way, would
   * otherwise wait a whole third for its renewal, past the lease's end). After a failed write, a
   * third of the lease later.
   */
  const schedule = () => {
    if (timer || closed) return;
    const left = startsUntil - clock();
    timer = setTimeout(
      () => {
        timer = undefined;
        if (closed || playing === 0) return;
        void renew().then(schedule);
      },
      left > 0 ? Math.min(renewEveryMs, left) : renewEveryMs,
    );
    timer.unref();
  };

  return {
    playerId,
    acquire() {
      playing++;
      if (closed) return undefined;
      schedule();
      if (clock() < startsUntil) return undefined;
      return renew();
    },
    done() {
      if (playing > 0) playing--;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await writing;
      if (!written) return;
      try {
        await repository.releaseLease(playerId);
      } catch (error) {
        onError(error);
      }
    },
  };
}
