import type { ApiFailure } from '../../api.js';

/**
 * The API's problems at a path and at its elements (`$.….allowedValues` and `$.….allowedValues[2]`),
 * beside the one control that edits the whole list: an element's problem says which value it is.
 */
export function ProblemsAt({ failure, path }: { failure: ApiFailure | null | undefined; path: string }) {
  const problems =
    failure?.details.filter(
      (d) => d.path === path || (d.path.startsWith(`${path}[`) && /^\[\d+\]$/.test(d.path.slice(path.length))),
    ) ?? [];
  if (problems.length === 0) return null;
  return (
    <div className="error" role="alert" data-path={path}>
      {problems
        .map((d) => {
          const index = /^\[(\d+)\]$/.exec(d.path.slice(path.length))?.[1];
          return index === undefined ? d.message : `value ${Number(index) + 1}: ${d.message}`;
        })
        .join('; ')}
    </div>
  );
}
