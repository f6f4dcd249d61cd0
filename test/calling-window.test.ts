import { describe, expect, it } from 'vitest';
import { isOpen, isValidTimeZone, nextOpening, windowProblems } from '../src/campaigns/calling-window.js';
import type { CallingWindow } from '../src/db/schema/campaigns.js';

const EVERY_DAY: CallingWindow['days'] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const win = (start: string, end: string, days = EVERY_DAY): CallingWindow => ({ days, start, end });
const at = (iso: string) => new Date(iso);
const next = (window: CallingWindow, zone: string, iso: string) => nextOpening(window, zone, at(iso)).toISOString();

describe('calling windows', () => {
  it('opens at the start (inclusive) and closes at the end (exclusive)', () => {
    const w = win('09:00', '18:00');
    expect(isOpen(w, 'UTC', at('2027-01-04T08:59:59Z'))).toBe(false);
    expect(isOpen(w, 'UTC', at('2027-01-04T09:00:00Z'))).toBe(true);
    expect(isOpen(w, 'UTC', at('2027-01-04T17:59:59Z'))).toBe(true);
    expect(isOpen(w, 'UTC', at('2027-01-04T18:00:00Z'))).toBe(false);
    expect(next(w, 'UTC', '2027-01-04T08:59:59Z')).toBe('2027-01-04T09:00:00.000Z');
    expect(next(w, 'UTC', '2027-01-04T12:34:56Z')).toBe('2027-01-04T12:34:56.000Z');
    expect(next(w, 'UTC', '2027-01-04T18:00:00Z')).toBe('2027-01-05T09:00:00.000Z');
  });

  it('skips days that are not listed (a weekend)', () => {
    const w = win('09:00', '18:00', ['mon', 'tue', 'wed', 'thu', 'fri']);
    // Friday 2027-01-08 after hours → Monday 2027-01-11.
    expect(next(w, 'UTC', '2027-01-08T18:00:00Z')).toBe('2027-01-11T09:00:00.000Z');
    expect(isOpen(w, 'UTC', at('2027-01-09T12:00:00Z'))).toBe(false);
    expect(next(w, 'UTC', '2027-01-09T12:00:00Z')).toBe('2027-01-11T09:00:00.000Z');
    // A window only on Sundays.
    expect(next(win('10:00', '11:00', ['sun']), 'UTC', '2027-01-04T00:00:00Z')).toBe('2027-01-10T10:00:00.000Z');
  });

  it('handles a window ending at 23:59', () => {
    const w = win('00:00', '23:59');
    expect(isOpen(w, 'UTC', at('2027-01-04T00:00:00Z'))).toBe(true);
    expect(isOpen(w, 'UTC', at('2027-01-04T23:58:59Z'))).toBe(true);
    expect(isOpen(w, 'UTC', at('2027-01-04T23:59:00Z'))).toBe(false);
    expect(next(w, 'UTC', '2027-01-04T23:59:30Z')).toBe('2027-01-05T00:00:00.000Z');
  });

  it('follows America/New_York across the spring-forward day', () => {
    const w = win('09:00', '18:00');
    // 2027-03-13 is EST (−05:00), 2027-03-14 EDT (−04:00) from 02:00 local.
    expect(next(w, 'America/New_York', '2027-03-13T05:00:00Z')).toBe('2027-03-13T14:00:00.000Z');
    expect(next(w, 'America/New_York', '2027-03-14T05:00:00Z')).toBe('2027-03-14T13:00:00.000Z');
    expect(isOpen(w, 'America/New_York', at('2027-03-14T12:59:59Z'))).toBe(false);
    expect(isOpen(w, 'America/New_York', at('2027-03-14T13:00:00Z'))).toBe(true);
    expect(isOpen(w, 'America/New_York', at('2027-03-14T21:59:59Z'))).toBe(true);
    expect(isOpen(w, 'America/New_York', at('2027-03-14T22:00:00Z'))).toBe(false);
    // A start inside the gap (02:00–03:00 does not exist) opens when the gap ends, 03:00 EDT.
    expect(next(win('02:30', '05:00'), 'America/New_York', '2027-03-14T05:00:00Z')).toBe('2027-03-14T07:00:00.000Z');
    // A window wholly inside the gap does not open that day.
    expect(next(win('02:00', '02:30'), 'America/New_York', '2027-03-14T05:00:00Z')).toBe('2027-03-15T06:00:00.000Z');
  });

  it('follows America/New_York across the fall-back day, taking an ambiguous time first', () => {
    const w = win('09:00', '18:00');
    expect(next(w, 'America/New_York', '2027-11-06T04:00:00Z')).toBe('2027-11-06T13:00:00.000Z');
    expect(next(w, 'America/New_York', '2027-11-07T04:00:00Z')).toBe('2027-11-07T14:00:00.000Z');
    expect(isOpen(w, 'America/New_York', at('2027-11-07T13:59:59Z'))).toBe(false);
    expect(isOpen(w, 'America/New_York', at('2027-11-07T14:00:00Z'))).toBe(true);
    // 01:30 happens twice (EDT, then EST): the first.
    expect(next(win('01:30', '05:00'), 'America/New_York', '2027-11-07T04:00:00Z')).toBe('2027-11-07T05:30:00.000Z');
  });

  it('follows Europe/Berlin on both DST days', () => {
    const w = win('09:00', '18:00');
    expect(next(w, 'Europe/Berlin', '2027-03-27T23:00:00Z')).toBe('2027-03-28T07:00:00.000Z');
    expect(next(w, 'Europe/Berlin', '2027-03-26T23:00:00Z')).toBe('2027-03-27T08:00:00.000Z');
    expect(next(win('02:30', '04:00'), 'Europe/Berlin', '2027-03-27T23:00:00Z')).toBe('2027-03-28T01:00:00.000Z');
    expect(next(w, 'Europe/Berlin', '2027-10-30T22:00:00Z')).toBe('2027-10-31T08:00:00.000Z');
    // 02:30 happens twice on 2027-10-31 (CEST, then CET): the first, 00:30 UTC.
    expect(next(win('02:30', '04:00'), 'Europe/Berlin', '2027-10-30T22:00:00Z')).toBe('2027-10-31T00:30:00.000Z');
  });

  it('handles half-hour and quarter-hour offsets', () => {
    const w = win('09:00', '18:00');
    // Asia/Kolkata is +05:30 all year.
    expect(next(w, 'Asia/Kolkata', '2027-01-04T00:00:00Z')).toBe('2027-01-04T03:30:00.000Z');
    expect(isOpen(w, 'Asia/Kolkata', at('2027-01-04T12:29:59Z'))).toBe(true);
    expect(isOpen(w, 'Asia/Kolkata', at('2027-01-04T12:30:00Z'))).toBe(false);
    // Pacific/Chatham is +12:45 in July (+13:45 in its summer).
    expect(next(w, 'Pacific/Chatham', '2027-07-04T12:00:00Z')).toBe('2027-07-04T20:15:00.000Z');
    expect(isOpen(w, 'Pacific/Chatham', at('2027-07-04T20:14:59Z'))).toBe(false);
    expect(isOpen(w, 'Pacific/Chatham', at('2027-07-04T20:15:00Z'))).toBe(true);
    expect(next(w, 'Pacific/Chatham', '2027-01-04T12:00:00Z')).toBe('2027-01-04T19:15:00.000Z');
  });

  it('tells IANA names from offsets and nonsense', () => {
    for (const zone of ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Pacific/Chatham']) {
      expect(isValidTimeZone(zone)).toBe(true);
    }
    for (const zone of ['+02:00', '-0500', 'UTC+2', 'GMT-3', 'Mars/Olympus', '', 'x'.repeat(200)]) {
      expect(isValidTimeZone(zone)).toBe(false);
    }
  });

  it('reports what is wrong with a window', () => {
    expect(windowProblems(win('09:00', '18:00'))).toEqual([]);
    expect(windowProblems({ days: [], start: '09:00', end: '18:00' })).toEqual([
      { path: '$.window.days', message: 'must list at least one day' },
    ]);
    expect(windowProblems({ days: ['mon', 'mon', 'funday'], start: '9:00', end: '24:00' })).toEqual([
      { path: '$.window.days[1]', message: 'lists mon twice' },
      { path: '$.window.days[2]', message: 'must be one of sun, mon, tue, wed, thu, fri, sat' },
      { path: '$.window.start', message: 'must be a time HH:MM from 00:00 to 23:59' },
      { path: '$.window.end', message: 'must be a time HH:MM from 00:00 to 23:59' },
    ]);
    expect(windowProblems({ days: ['mon'], start: '18:00', end: '18:00' })).toEqual([
      { path: '$.window.end', message: 'must be after start' },
    ]);
  });
});
