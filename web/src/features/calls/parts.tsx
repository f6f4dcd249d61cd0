import { type ReactNode, useId } from 'react';
import { showValue } from './format.js';

/** A titled card, named by its title so it can be found as a region. */
export function Panel({ title, actions, children }: { title: ReactNode; actions?: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <section className="card" aria-labelledby={id}>
      <div className="toolbar">
        <h2 id={id}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** Variables and collected data: names and values, or a word saying there are none. */
export function KeyValueTable({
  label,
  values,
  none,
}: {
  label: string;
  values: Record<string, unknown>;
  none: string;
}) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <p className="muted">{none}</p>;
  return (
    <table aria-label={label} className="key-values">
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key}>
            <th scope="row">
              <code>{key}</code>
            </th>
            <td>{showValue(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Says the screen is following something still under way, and that it updates by itself. */
export function LiveIndicator({ what }: { what: string }) {
  return (
    <span className="live" role="status" aria-label={`Live: ${what} updates by itself`}>
      <span className="live-dot" aria-hidden="true" />
      live
    </span>
  );
}
