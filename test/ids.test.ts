import { describe, expect, it } from 'vitest';
import { isIdShaped, newId } from '../src/lib/ids.js';

describe('ids', () => {
  it('are strictly increasing within a process, also many in one millisecond and with an earlier time given', () => {
    const now = Date.now();
    const ids = [...Array.from({ length: 2000 }, () => newId('tinv', now)), newId('tinv', now - 5000), newId('tinv')];
    for (const [i, id] of ids.entries()) {
      expect(isIdShaped(id), id).toBe(true);
      if (i > 0) expect(id > (ids[i - 1] as string), `${ids[i - 1]} < ${id}`).toBe(true);
    }
  });
});
