/**
 * Our path's load and its floor's measured in turn, ABBA (floor then path, path then floor, floor
 * then path…): the machine's speed drifts over minutes (decision 0061), so each pair's two loads run
 * seconds apart, and the row is the middle pair's (`middlePair`). `onPair` is told as each pair starts.
 */
export async function measureInTurn<F, P>(
  count: number,
  floor: (pair: number) => Promise<F>,
  path: (pair: number) => Promise<P>,
  onPair: (pair: number) => void = () => {},
): Promise<{ floor: F; path: P }[]> {
  const pairs: { floor: F; path: P }[] = [];
  for (let pair = 0; pair < count; pair++) {
    onPair(pair);
    if (pair % 2 === 0) {
      const floorResult = await floor(pair);
      pairs.push({ floor: floorResult, path: await path(pair) });
    } else {
      const pathResult = await path(pair);
      pairs.push({ path: pathResult, floor: await floor(pair) });
    }
  }
  return pairs;
}

/** The pair whose ratio is the middle one of the pairs'. */
export function middlePair<T>(pairs: readonly T[], ratio: (pair: T) => number): T {
  const sorted = [...pairs].sort((a, b) => ratio(a) - ratio(b));
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (!middle) throw new Error('no pair was measured');
  return middle;
}
