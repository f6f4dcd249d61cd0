/**
 * Polls `probe` until it returns a value (not undefined or false), and returns it; fails naming
 * `what` after `ms`. For things that happen in the background: a delivery, a publish, a call's end.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Whether a server at `url` answers `/healthz` with 200: false while it does not listen yet. */
export async function answersHealthz(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`)).ok;
  } catch {
    return false;
  }
}
