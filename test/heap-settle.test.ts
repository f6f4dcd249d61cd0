import v8 from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_PRETENURING, OLD_GENERATION_GROWTH, runtimeHeapFlags, settleHeapAfterStart } from '../src/lib/heap.js';

// V8's own view of a function, through its natives syntax (allowed for code compiled from here on).
v8.setFlagsFromString('--allow-natives-syntax');
const natives = new Function(
  'f',
  'return { prepare() { %PrepareFunctionForOptimization(f); }, optimizeNext() { %OptimizeFunctionOnNextCall(f); }, status() { return %GetOptimizationStatus(f); } };',
) as (f: (n: number) => number) => { prepare(): void; optimizeNext(): void; status(): number };
const TURBOFANNED = 1 << 6; // V8's OptimizationStatus::kTurboFanned (the same bit in Node 20, 22 and 24)

function optimisedAfterAsking(): boolean {
  const square = new Function('n', 'return n * n + 1;') as (n: number) => number;
  const v8Of = natives(square);
  v8Of.prepare();
  square(2);
  square(3);
  v8Of.optimizeNext();
  square(4);
  return (v8Of.status() & TURBOFANNED) !== 0;
}

describe('settleHeapAfterStart', () => {
  afterAll(() => v8.setFlagsFromString('--turbofan'));

  it('turns the optimising compiler back on after a start that ran without it (bin/switchboard.js)', () => {
    v8.setFlagsFromString('--no-turbofan');
    expect(optimisedAfterAsking()).toBe(false);
    settleHeapAfterStart({ databaseUrl: undefined });
    expect(optimisedAfterAsking()).toBe(true);
  });
});

describe('the V8 flags serve sets once it is up', () => {
  const postgres = 'postgres://127.0.0.1/x';

  it('are no pretenuring everywhere and, on PostgreSQL, an old generation four times the live size (decision 0115)', () => {
    expect(runtimeHeapFlags({ databaseUrl: undefined, execArgv: [], nodeOptions: '' })).toEqual([NO_PRETENURING]);
    expect(runtimeHeapFlags({ databaseUrl: postgres, execArgv: [], nodeOptions: '' })).toEqual([
      NO_PRETENURING,
      '--heap-growing-percent=300',
    ]);
    expect(OLD_GENERATION_GROWTH).toBe('--heap-growing-percent=300');
  });

  it("leave the operator's own growth, however V8's name is written, and keep the rest", () => {
    expect(
      runtimeHeapFlags({ databaseUrl: postgres, execArgv: ['--heap-growing-percent=50'], nodeOptions: '' }),
    ).toEqual([NO_PRETENURING]);
    // Node refuses it in NODE_OPTIONS: the command line is where an operator gives it.
    expect(
      runtimeHeapFlags({ databaseUrl: postgres, execArgv: ['--heap_growing_percent=100'], nodeOptions: '' }),
    ).toEqual([NO_PRETENURING]);
    expect(
      runtimeHeapFlags({ databaseUrl: postgres, execArgv: ['--allocation-site-pretenuring'], nodeOptions: '' }),
    ).toEqual([OLD_GENERATION_GROWTH]);
  });
});
