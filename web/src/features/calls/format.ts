import type { CallDirection, CallStatus, Delivery } from '../../api.js';

export const DIRECTION_LABELS: Record<CallDirection, string> = { outbound: 'Outbound', inbound: 'Inbound' };

export const CALL_STATUSES: { value: CallStatus; label: string }[] = [
  { value: 'queued', label: 'Queued' },
  { value: 'ringing', label: 'Ringing' },
  { value: 'in_progress', label: 'In progress' },
  { value: 'ended', label: 'Ended' },
];

/** The orders `GET /v1/calls?sort=` knows; `-` is largest (or newest) first. */
export const CALL_SORTS = [
  { value: '-createdAt', label: 'Newest first' },
  { value: 'createdAt', label: 'Oldest first' },
  { value: '-durationSeconds', label: 'Longest first' },
  { value: 'durationSeconds', label: 'Shortest first' },
] as const;
export type CallSort = (typeof CALL_SORTS)[number]['value'];

/**
 * An ISO instant as a `datetime-local` field's value (`2026-11-24T14:00`), in the person's own time
 * zone; '' when there is none or it cannot be read.
 */
export function toLocalInput(iso: string): string {
  const date = new Date(iso);
  if (iso === '' || Number.isNaN(date.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  const time = `${two(date.getHours())}:${two(date.getMinutes())}`;
  return date.getSeconds() === 0 ? `${day}T${time}` : `${day}T${time}:${two(date.getSeconds())}`;
}

/** A `datetime-local` field's value (local time) as the ISO instant the API takes; '' stays ''. */
export function fromLocalInput(value: string): string {
  if (value === '') return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** `42 s`, `3 min 5 s`: calls are short, hours are rare enough to read as minutes. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  return rest === 0 ? `${Math.floor(seconds / 60)} min` : `${Math.floor(seconds / 60)} min ${rest} s`;
}

/** "1 delivered, 1 failed": what happened to a call's outcome webhooks, at a glance. */
export function deliveriesSummary(deliveries: Delivery[]): string {
  if (deliveries.length === 0) return '—';
  const counts = new Map<string, number>();
  for (const delivery of deliveries) counts.set(delivery.state, (counts.get(delivery.state) ?? 0) + 1);
  return ['delivered', 'pending', 'failed']
    .filter((state) => counts.has(state))
    .map((state) => `${counts.get(state)} ${state}`)
    .join(', ');
}

/** A value for a table cell: strings as they are (no quotes), anything else as JSON. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/** A recorded body or result: JSON text indented to be read, anything else as it is. */
export function prettyText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

export function formatClock(iso: string | null | undefined): string {
  if (!iso) return '';
  return new Date(iso).toLocaleTimeString(undefined, { timeStyle: 'medium' });
}
