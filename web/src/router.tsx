import { type MouseEvent, type ReactNode, useEffect, useState } from 'react';

/**
 * The dashboard's routing: real paths (`/agents/agt_…`) kept in the browser's history, so every
 * screen has an address that can be bookmarked or reloaded (the server answers index.html for them).
 */
export function navigate(
  to: string,
  { replace = false, state = null }: { replace?: boolean; state?: unknown } = {},
): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(state, '', to);
  else history.pushState(state, '', to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The current path and query, re-rendered on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [current, setCurrent] = useState(() => location.pathname + location.search);
  useEffect(() => {
    const update = () => setCurrent(location.pathname + location.search);
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  const url = new URL(current, location.origin);
  return { path: url.pathname, query: url.searchParams };
}

/**
 * A list's filters kept in the page's address under the API's own query names, so a link, a reload
 * or Back shows the same view. `names` are the filters, in the order they are written into the
 * address; other parameters of the page (a tab, say) are kept after them. Setting a filter drops the
 * paging `cursor`: another filter is another list, which starts at its first page.
 */
export function useQueryState<K extends string>(
  names: readonly K[],
): [Record<K, string>, (changes: Partial<Record<K, string>>, options?: { replace?: boolean }) => void] {
  const { path, query } = useLocation();
  const values = Object.fromEntries(names.map((name) => [name, query.get(name) ?? ''])) as Record<K, string>;
  const set = (changes: Partial<Record<K, string>>, { replace = false } = {}) => {
    const next = new URLSearchParams();
    const merged: Record<string, string> = { ...values, ...changes };
    for (const name of names) if (merged[name]) next.set(name, merged[name]);
    for (const [name, value] of query) {
      if (!(names as readonly string[]).includes(name) && name !== 'cursor') next.set(name, value);
    }
    const text = next.toString();
    navigate(text ? `${path}?${text}` : path, { replace });
  };
  return [values, set];
}

/** Matches `/tools/:id` against a path: the named segments, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const have = path.replace(/\/$/, '').split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const actual = have[i] ?? '';
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(actual);
    else if (segment !== actual) return undefined;
  }
  return params;
}

/** An in-app link: a real `<a href>` (open in a new tab works), navigated without reloading. */
export function Link({ to, children, className }: { to: string; children: ReactNode; className?: string }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={onClick} className={className}>
      {children}
    </a>
  );
}
