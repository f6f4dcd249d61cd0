/**
 * The Overview's period: what the page address says (`?period=7d`, or `?from=2026-11-01&to=2026-11-24`
 * for a custom range), turned into the stats request's `from`, `to` and `interval`.
 *
 * Ranges are whole days in the browser's own time zone, which is the `timezone` the page sends: a
 * day's bucket then starts at the midnight the person sees, and "today" is their today. `to` is the
 * midnight after the last day, so the last bucket is a whole one (its future part simply counts nothing).
 */

export type PeriodKey = 'today' | '7d' | '30d' | 'custom';
export type Interval = 'hour' | 'day';

export const PERIODS: { key: PeriodKey; label: string }[] = [
  { key: 'today', label: 'Today' },
  { key: '7d', label: '7 days' },
  { key: '30d', label: '30 days' },
  { key: 'custom', label: 'Custom' },
];

/** What a page address without a period shows: a week is enough to see a trend, few enough bars to read. */
export const DEFAULT_PERIOD: PeriodKey = '7d';

export interface Period {
  key: PeriodKey;
  /** The custom range's first and last day as typed (`YYYY-MM-DD`), also shown for the presets. */
  fromDay: string;
  toDay: string;
  from: Date;
  to: Date;
  interval: Interval;
}

/** The browser's IANA time zone (`Europe/Paris`): the stats' buckets start at its midnights and hours. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** `YYYY-MM-DD` of a local date (what `<input type="date">` holds). */
export function dayText(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Local midnight of a `YYYY-MM-DD`, or undefined when it is not a date. */
function parseDay(text: string | null): Date | undefined {
  const found = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text ?? '');
  if (!found) return undefined;
  const date = new Date(Number(found[1]), Number(found[2]) - 1, Number(found[3]));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Local midnight `days` days after `day` (calendar days, so a daylight-saving change is no trouble). */
function addDays(day: Date, days: number): Date {
  return new Date(day.getFullYear(), day.getMonth(), day.getDate() + days);
}

/**
 * The period the page address asks for. Custom dates that are missing or not dates fall back to the
 * last 7 days, so a hand-edited address still shows something; dates in the wrong order are sent as
 * they are, for the API to refuse in its own words.
 */
export function periodFromQuery(query: URLSearchParams, now = new Date()): Period {
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const fromDay = parseDay(query.get('from'));
  const toDay = parseDay(query.get('to'));
  if (fromDay && toDay) {
    return {
      key: 'custom',
      fromDay: dayText(fromDay),
      toDay: dayText(toDay),
      from: fromDay,
      to: addDays(toDay, 1),
      interval: 'day',
    };
  }
  const asked = query.get('period');
  const key: PeriodKey = asked === 'today' || asked === '30d' ? asked : DEFAULT_PERIOD;
  const days = key === 'today' ? 1 : key === '30d' ? 30 : 7;
  const first = addDays(today, 1 - days);
  return {
    key,
    fromDay: dayText(first),
    toDay: dayText(today),
    from: first,
    to: addDays(today, 1),
    interval: key === 'today' ? 'hour' : 'day',
  };
}

/** The Overview's own address for a period and an agent, with only what differs from the defaults. */
export function overviewPath(period: { key: PeriodKey; fromDay?: string; toDay?: string }, agentId: string): string {
  const query = new URLSearchParams();
  if (period.key === 'custom') {
    query.set('from', period.fromDay ?? '');
    query.set('to', period.toDay ?? '');
  } else if (period.key !== DEFAULT_PERIOD) {
    query.set('period', period.key);
  }
  if (agentId) query.set('agentId', agentId);
  const text = query.toString();
  return text ? `/overview?${text}` : '/overview';
}

/**
 * The calls list for a time range (`since` inclusive, `until` exclusive, as GET /v1/calls reads them)
 * and the agent: where a chart's bar or "View these calls" leads.
 */
export function callsPath(since: string, until: string, agentId: string): string {
  const query = new URLSearchParams({ since, until });
  if (agentId) query.set('agentId', agentId);
  return `/calls?${query.toString()}`;
}
