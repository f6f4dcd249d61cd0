import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCount } from '../src/lib/format-count.js';

describe('formatCount', () => {
  it('writes every safe integer as toLocaleString("en-US") does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -1_000_000, max: 1_000_000 })), (n) => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
      }),
      { numRuns: 2000 },
    );
    for (const n of [0, 999, 1000, 10_000, 100_000, 1_000_000, -1000, Number.MAX_SAFE_INTEGER]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
  });

  it('leaves what is not a safe integer as String() writes it', () => {
    for (const n of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) expect(formatCount(n)).toBe(String(n));
  });
});
