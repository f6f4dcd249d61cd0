/**
 * Sends the answers that refuse a caller without credentials late (decision 0029): a click-to-call
 * with no token, a token nobody was issued or a wrong signature is answered about `delayMs` after
 * it came (between half and one and a half times it, at random, so that the connections of a flood
 * do not all come back in the same instant: held in step, 2,000 of them returned as one burst each
 * second, and a real request arriving behind it waited the whole burst). A client that waits for
 * each answer before sending the next (every HTTP flood tool, every connection pool) then sends one
 * request per connection per delay instead of as many as the server can answer, so 2,000 such
 * connections cost a fifth of a core instead of all of it, and the requests of real callers no
 * longer queue behind theirs. A caller with a typo learns the same answer a second later.
 *
 * Each held answer is the request it answers and a place in a slot: at most `maxHeld` wait; beyond
 * that, answers go out at once (as without pacing), so holding them can never be what exhausts memory.
 */
export interface RefusalPacerOptions {
  /** How long a refusal waits on average (0.5× to 1.5×, at random); 0 sends at once. */
  delayMs: number;
  /** Refusals waiting at most; the next are sent at once. */
  maxHeld: number;
}

/**
 * Answers due within the same `SLOT_MS` go out together, from one timer: a timer per refusal woke the
 * process once per answer, and at 2,000 held connections those wake-ups, not the refusals, were most of
 * what a refusal cost (docs/benchmarks.md). A slot is small beside the delay's spread, so the answers
 * still come back spread over the second.
 */
const SLOT_MS = 20;

export function createRefusalPacer({ delayMs, maxHeld }: RefusalPacerOptions) {
  /** The answers waiting, by their slot: a multiple of SLOT_MS on the monotonic clock (`performance.now()`). */
  const slots = new Map<number, { timer: NodeJS.Timeout; sends: (() => void)[] }>();
  let held = 0;
  let closed = false;
  const release = (slot: number) => {
    const due = slots.get(slot);
    if (!due) return;
    slots.delete(slot);
    held -= due.sends.length;
    // One answer that throws must not keep the others of its slot waiting: thrown after they are sent.
    let failed: { error: unknown } | undefined;
    for (const send of due.sends) {
      try {
        send();
      } catch (error) {
        failed ??= { error };
      }
    }
    if (failed) throw failed.error;
  };
  return {
    /** Runs `send` after the delay, or at once when the pacer is full, closed or set to 0. */
    pace(send: () => void): void {
      if (delayMs <= 0 || closed || held >= maxHeld) {
        send();
        return;
      }
      const slot = Math.ceil((performance.now() + delayMs * (0.5 + Math.random())) / SLOT_MS) * SLOT_MS;
      let due = slots.get(slot);
      if (!due) {
        due = { timer: setTimeout(release, slot - performance.now(), slot), sends: [] };
        slots.set(slot, due);
      }
      due.sends.push(send);
      held += 1;
    },
    /** Refusals waiting now. */
    get held(): number {
      return held;
    },
    /** Sends every waiting refusal now, and later ones at once: the server is closing. */
    flush(): void {
      closed = true;
      for (const [slot, due] of slots) {
        clearTimeout(due.timer);
        release(slot);
      }
    },
  };
}

export type RefusalPacer = ReturnType<typeof createRefusalPacer>;
