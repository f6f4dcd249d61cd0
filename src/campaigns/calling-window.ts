import type { CallingWindow } from '../db/schema/campaigns.js';

/**
 * Calling windows in local time (decision 0049): whether an instant lies in a window in an IANA time
 * zone, and the next instant it does. Only `Intl.DateTimeFormat` knows the zones' offsets; nothing
 * here adds an offset by hand, so DST changes and odd offsets (+05:30, +12:45) follow the zone data.
 *
 * A window is open on its `days` from `start` (inclusive) to `end` (exclusive), local wall-clock
 * time. On a spring-forward day a start inside the gap opens at the first instant after the gap
 * (02:30 in New York is 03:00 EDT); on a fall-back day an ambiguous start takes its first occurrence.
 */

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Local wall-clock time in a zone. `weekday` 0 = Sunday. */
interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAY_INDEX: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
      era: 'short',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

function wallOf(zone: string, at: number): Wall {
  const wall: Wall = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, weekday: 0 };
  let bc = false;
  for (const part of formatterOf(zone).formatToParts(at)) {
    switch (part.type) {
      case 'year':
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second':
        wall[part.type] = Number(part.value);
        break;
      case 'weekday':
        wall.weekday = WEEKDAY_INDEX[part.value] ?? 0;
        break;
      case 'era':
        bc = part.value === 'BC' || part.value === 'B';
        break;
    }
  }
  if (bc) wall.year = 1 - wall.year;
  return wall;
}

/** The wall time read as if it were UTC, in ms: comparable, and minus the instant it is the offset. */
const wallMs = (w: Omit<Wall, 'weekday'>) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/** The zone's offset from UTC at the instant, in ms. */
const offsetAt = (zone: string, at: number) => wallMs(wallOf(zone, at)) - Math.floor(at / 1000) * 1000;

/** Whether `name` is an IANA time zone name (not an offset such as "+02:00", not "local"). */
export function isValidTimeZone(name: string): boolean {
  if (typeof name !== 'string' || name.length === 0 || name.length > 100) return false;
  // Intl accepts offsets ("+02:00") as zones in recent engines: a window follows a zone's rules, not a fixed offset.
  if (!/^[A-Za-z]/.test(name) || /^(?:UTC|GMT)?[+-]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** What is wrong with a window, as `{path, message}` under `path` (empty when it is valid). */
export function windowProblems(window: unknown, path = '$.window'): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  if (typeof window !== 'object' || window === null) return [{ path, message: 'must be an object' }];
  const { days, start, end } = window as Partial<Record<keyof CallingWindow, unknown>>;
  if (!Array.isArray(days) || days.length === 0) {
    problems.push({ path: `${path}.days`, message: 'must list at least one day' });
  } else {
    const seen = new Set<string>();
    days.forEach((day, index) => {
      if (typeof day !== 'string' || !(WEEKDAYS as readonly string[]).includes(day)) {
        problems.push({ path: `${path}.days[${index}]`, message: `must be one of ${WEEKDAYS.join(', ')}` });
      } else if (seen.has(day)) {
        problems.push({ path: `${path}.days[${index}]`, message: `lists ${day} twice` });
      }
      seen.add(String(day));
    });
  }
  const startOk = typeof start === 'string' && TIME_PATTERN.test(start);
  const endOk = typeof end === 'string' && TIME_PATTERN.test(end);
  if (!startOk) problems.push({ path: `${path}.start`, message: 'must be a time HH:MM from 00:00 to 23:59' });
  if (!endOk) problems.push({ path: `${path}.end`, message: 'must be a time HH:MM from 00:00 to 23:59' });
  if (startOk && endOk && minutesOf(end as string) <= minutesOf(start as string)) {
    problems.push({ path: `${path}.end`, message: 'must be after start' });
  }
  return problems;
}

/** Whether the window is open at `at` in the zone: a listed day, start ≤ local time < end. */
export function isOpen(window: CallingWindow, zone: string, at: Date): boolean {
  const wall = wallOf(zone, at.getTime());
  if (!window.days.includes(WEEKDAYS[wall.weekday] as Weekday)) return false;
  const seconds = wall.hour * 3600 + wall.minute * 60 + wall.second;
  return seconds >= minutesOf(window.start) * 60 && seconds < minutesOf(window.end) * 60;
}

/**
 * The earliest instant whose local wall time in the zone is at or after the given one: the wall
 * time itself when it exists (its first occurrence when it happens twice), else the end of the gap.
 */
function firstInstantAtOrAfter(zone: string, year: number, month: number, day: number, minutes: number): number {
  const target = Date.UTC(year, month - 1, day, Math.floor(minutes / 60), minutes % 60);
  // The offsets in force around the target: a transition is never closer than days to another.
  const offsets = [...new Set([-36, 0, 36].map((hours) => offsetAt(zone, target + hours * 3600_000)))];
  const exact = offsets
    .map((offset) => target - offset)
    .filter((candidate) => wallMs(wallOf(zone, candidate)) === target)
    .sort((a, b) => a - b);
  if (exact[0] !== undefined) return exact[0];
  // In a gap: the wall clock jumps over the target between the candidates; find the jump.
  const candidates = offsets.map((offset) => target - offset).sort((a, b) => a - b);
  let low = candidates[0] as number; // wall(low) < target
  let high = candidates[candidates.length - 1] as number; // wall(high) > target
  if (wallMs(wallOf(zone, low)) >= target) return low;
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (wallMs(wallOf(zone, middle)) >= target) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * The next instant at or after `at` when the window is open in the zone: `at` itself when it is
 * open, else the next listed day's start (local), across DST changes.
 */
export function nextOpening(window: CallingWindow, zone: string, at: Date): Date {
  if (isOpen(window, zone, at)) return at;
  const wall = wallOf(zone, at.getTime());
  const start = minutesOf(window.start);
  // Two weeks: a listed day comes within one, and a start and end inside a DST gap skip that day.
  for (let offset = 0; offset <= 14; offset++) {
    const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + offset));
    if (!window.days.includes(WEEKDAYS[date.getUTCDay()] as Weekday)) continue;
    const opening = firstInstantAtOrAfter(
      zone,
      date.getUTCFullYear(),
      date.getUTCMonth() + 1,
      date.getUTCDate(),
      start,
    );
    if (opening >= at.getTime() && isOpen(window, zone, new Date(opening))) return new Date(opening);
  }
  // Unreachable for a valid window; a day later the scheduler looks again.
  return new Date(at.getTime() + 24 * 3600_000);
}
