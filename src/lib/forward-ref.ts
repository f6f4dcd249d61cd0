/**
 * A dependency built after the one that needs it: domains that call each other (a changed tool makes
 * its agents publish again; publishing is built later, from the tools) take a reference now and it is
 * filled once the composition root has built the other side. Using it before then is a wiring bug.
 */
export interface ForwardRef<T> {
  (): T;
  set(value: T): void;
}

export function forwardRef<T>(name: string): ForwardRef<T> {
  let value: T | undefined;
  const get = (() => {
    if (value === undefined) throw new Error(`${name} is used before the composition root built it`);
    return value;
  }) as ForwardRef<T>;
  get.set = (v: T) => {
    value = v;
  };
  return get;
}
