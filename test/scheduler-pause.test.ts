import { describe, expect, it } from 'vitest';
import { nextPause, PAUSE_JITTER } from '../src/campaigns/scheduler.js';

// Decision 0119: the scheduler's pauses are spread so that two workers woken together (a campaign
// started) stop passing in step, where one a moment ahead of the other took every contest for the
// campaign's row.
describe('the campaign scheduler’s pause', () => {
  it('counts a busy interval from the start of the pass, spread by the jitter either way', () => {
    expect(nextPause(true, 30, 100, () => 0.5)).toBeCloseTo(70);
    expect(nextPause(true, 30, 100, () => 0)).toBeCloseTo(70 * (1 - PAUSE_JITTER));
    expect(nextPause(true, 30, 100, () => 0.999999)).toBeCloseTo(70 * (1 + PAUSE_JITTER), 3);
    // A pass longer than the interval still leaves a tenth of it.
    expect(nextPause(true, 250, 100, () => 0.5)).toBeCloseTo(10);
  });

  it('waits the idle pause, or the interval when that is longer, after a pass with nothing to do', () => {
    expect(nextPause(false, 3, 100, () => 0.5)).toBeCloseTo(5000);
    expect(nextPause(false, 3, 60_000, () => 0.5)).toBeCloseTo(60_000);
    expect(nextPause(false, 3, 100, () => 0)).toBeCloseTo(4000);
  });

  it('keeps the pace on average, and two schedulers started together drift apart', () => {
    let sum = 0;
    for (let i = 0; i < 20_000; i++) sum += nextPause(true, 0, 100, Math.random);
    expect(sum / 20_000).toBeGreaterThan(99);
    expect(sum / 20_000).toBeLessThan(101);

    // Two schedulers passing every 100 ms from the same moment: after 20 passes (2 s, a call's
    // length in the two-worker test) they are seldom within 5 ms of each other.
    let inStep = 0;
    for (let trial = 0; trial < 1000; trial++) {
      let a = 0;
      let b = 0;
      for (let pass = 0; pass < 20; pass++) {
        a += nextPause(true, 0, 100, Math.random);
        b += nextPause(true, 0, 100, Math.random);
      }
      if (Math.abs(a - b) < 5) inStep++;
    }
    expect(inStep).toBeLessThan(200);
  });
});
