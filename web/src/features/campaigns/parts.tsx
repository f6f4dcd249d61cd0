import { type CallingWindow, type CampaignCounts, DAYS, finished, type RetryPolicy } from './types.js';

/**
 * How far a campaign has come: the contacts that will not be called again (done, skipped, failed)
 * over all of them, as a native `<progress>` named after the campaign, and the same counts as text
 * beside it, so a screen reader and a glance read the same figures.
 */
export function CampaignProgress({ name, counts }: { name: string; counts: CampaignCounts }) {
  const over = finished(counts);
  const percent = counts.total === 0 ? 0 : Math.floor((over / counts.total) * 100);
  return (
    <div className="campaign-progress">
      <progress
        max={Math.max(counts.total, 1)}
        value={over}
        aria-label={`Progress of ${name}`}
        aria-valuetext={`${percent}%: ${progressText(counts)}`}
      />
      <span className="campaign-progress-text">{progressText(counts)}</span>
    </div>
  );
}

/** "7 of 10 finished (5 done, 1 skipped, 1 failed)"; "No contacts yet". */
export function progressText(counts: CampaignCounts): string {
  if (counts.total === 0) return 'No contacts yet';
  const over = finished(counts);
  const parts = [`${counts.done.toLocaleString()} done`];
  if (counts.skipped > 0) parts.push(`${counts.skipped.toLocaleString()} skipped`);
  if (counts.failed > 0) parts.push(`${counts.failed.toLocaleString()} failed`);
  return `${over.toLocaleString()} of ${counts.total.toLocaleString()} finished (${parts.join(', ')})`;
}

/** "Mon–Fri, 09:00–18:00": days in a row are joined with a dash. */
export function windowText(window: CallingWindow): string {
  const order = DAYS.map((day) => day.value);
  const chosen = order.filter((day) => window.days.includes(day));
  const short = (day: string) => day.charAt(0).toUpperCase() + day.slice(1);
  const runs: string[] = [];
  let i = 0;
  while (i < chosen.length) {
    let j = i;
    while (j + 1 < chosen.length && order.indexOf(chosen[j + 1] as never) === order.indexOf(chosen[j] as never) + 1) {
      j++;
    }
    const first = chosen[i] ?? '';
    const last = chosen[j] ?? '';
    runs.push(
      j - i >= 2
        ? `${short(first)}–${short(last)}`
        : chosen
            .slice(i, j + 1)
            .map(short)
            .join(', '),
    );
    i = j + 1;
  }
  return `${runs.join(', ') || 'no days'}, ${window.start}–${window.end}`;
}

/** "2 more after no answer, 2 after busy, none after voicemail or a failure; 60 min apart". */
export function retryText(retry: RetryPolicy): string {
  const part = (n: number, what: string) => `${n === 0 ? 'none' : n} after ${what}`;
  return [
    part(retry.noAnswer, 'no answer'),
    part(retry.busy, 'busy'),
    part(retry.voicemail, 'voicemail'),
    part(retry.failed, 'a failure'),
  ]
    .join(', ')
    .concat(`; ${retry.delayMinutes} min apart`);
}
