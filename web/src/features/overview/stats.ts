import { api, withQuery } from '../../api.js';
import type { components } from '../../api-types.js';
import type { Interval } from './period.js';

/** The statistics of a set of calls: the period's totals and each interval hold the same figures. */
export type StatsBucket = components['schemas']['StatsBucket'];

/** GET /v1/stats: every interval of the range (empty ones too, oldest first) and the totals. */
export type Stats = components['schemas']['Stats'];

export interface StatsQuery {
  from: Date;
  to: Date;
  interval: Interval;
  timezone: string;
  agentId: string;
}

export function statsPath(query: StatsQuery): string {
  return withQuery('/v1/stats', {
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    interval: query.interval,
    timezone: query.timezone,
    agentId: query.agentId,
  });
}

export function loadStats(query: StatsQuery): Promise<Stats> {
  return api<Stats>('GET', statsPath(query));
}

/** Each interval's end: the next one's start, and the range's `to` for the last. */
export function intervalEnds(stats: Stats): string[] {
  return stats.intervals.map((_, i) => stats.intervals[i + 1]?.start ?? stats.to);
}

/**
 * The outcomes the period has, in a stable order (most frequent first, then by name), so a chart's
 * colours and a table's columns do not move between intervals.
 */
export function outcomesOf(stats: Stats): string[] {
  const names = new Set<string>([...Object.keys(stats.totals.byOutcome), ...Object.keys(stats.totals.conversion)]);
  for (const bucket of stats.intervals) for (const name of Object.keys(bucket.byOutcome)) names.add(name);
  return [...names].sort(
    (a, b) => (stats.totals.byOutcome[b] ?? 0) - (stats.totals.byOutcome[a] ?? 0) || a.localeCompare(b),
  );
}

/** Calls of an interval that have no outcome (yet): still under way, or ended without one. */
export function withoutOutcome(bucket: StatsBucket): number {
  const withOne = Object.values(bucket.byOutcome).reduce((sum, n) => sum + n, 0);
  return Math.max(0, bucket.calls - withOne);
}

/** `50%`, `33.3%`: one decimal at most, so small differences stay visible without noise. */
export function formatPercent(share: number | null | undefined): string {
  if (share === null || share === undefined) return '—';
  return `${Math.round(share * 1000) / 10}%`;
}

/** `42 s`, `3 min 5 s`; durations from the API may be fractional (an average), shown to the second. */
export function formatSeconds(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  const rest = whole % 60;
  return rest === 0 ? `${Math.floor(whole / 60)} min` : `${Math.floor(whole / 60)} min ${rest} s`;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return `${Math.round(ms)} ms`;
}

/** An interval's start as a person reads it: the hour for a day's hours, the date for days. */
export function intervalLabel(start: string, interval: Interval, timezone: string): string {
  const date = new Date(start);
  return interval === 'hour'
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: timezone })
    : date.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short', timeZone: timezone });
}

/** A short axis label: `14:00` or `24 Nov`. */
export function axisLabel(start: string, interval: Interval, timezone: string): string {
  const date = new Date(start);
  return interval === 'hour'
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: timezone })
    : date.toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: timezone });
}
