/**
 * Sends the answers that refuse a caller without credentials late (decision 0029): a click-to-call
 * with no token, a token nobody was issued or a wrong signature is answered about `delayMs` after
 * it came (between half and one and a half times it, at random, so that the connections of a flood
 * do not all come back in the same instant: held in step, 2,000 of them returned as one burst each
 * second, and a real request arriving behind it waited the whole burst). A client that waits for each answer before sending the next (every HTTP flood tool, every
 * connection pool) then sends one request per connection per delay instead of as many as the server
 * can answer, so 2,000 such connections cost a fifth of a core instead of all of it, and the
 * requests of real callers no longer queue behind theirs. A caller with a typo learns the same
 * answer a second later.
 *
 * Each held answer is a timer and the request it answers: at most `maxHeld` wait; beyond that,
 * answers go out at once (as without pacing), so holding them can never be what exhausts memory.
 */
export interface RefusalPacerOptions {
  /** How long a refusal waits on average (0.5× to 1.5×, at random); 0 sends at once. */
  delayMs: number;
  /** Refusals waiting at most; the next are sent at once. */
  maxHeld: number;
}

export function createRefusalPacer({ delayMs, maxHeld }: RefusalPacerOptions) {
  const held = new Map<NodeJS.Timeout, () => void>();
  let closed = false;
  return {
    /** Runs `send` after the delay, or at once when the pacer is full, closed or set to 0. */
    pace(send: () => void): void {
      if (delayMs <= 0 || closed || held.size >= maxHeld) {
        send();
        return;
      }
      const timer = setTimeout(
        () => {
          held.delete(timer);
          send();
        },
        delayMs * (0.5 + Math.random()),
      );
      held.set(timer, send);
    },
    /** Refusals waiting now. */
    get held(): number {
      return held.size;
    },
    /** Sends every waiting refusal now, and later ones at once: the server is closing. */
    flush(): void {
      closed = true;
      for (const [timer, send] of held) {
        clearTimeout(timer);
        send();
      }
      held.clear();
    },
  };
}

export type RefusalPacer = ReturnType<typeof createRefusalPacer>;
