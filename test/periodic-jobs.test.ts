import { describe, expect, it } from 'vitest';
import { startJobs } from '../src/jobs/catalog.js';
import { runPeriodically } from '../src/jobs/periodic.js';
import { until } from './helpers/wait.js';

const HOUR = 3_600_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The job runner of the worker role (src/jobs/): the pause between runs, due times and wakes (decision 0086). */
describe('periodic jobs', () => {
  it('run again when the task says its work falls due, however long the interval', async () => {
    const dueIn = [30, 10];
    let runs = 0;
    const job = runPeriodically(
      async () => {
        runs++;
        return dueIn.shift();
      },
      HOUR,
      (error) => {
        throw error;
      },
      { runAtStart: true },
    );
    // At start, then 30 ms later, then 10 ms after that; then nothing is due for an hour.
    await until('three runs', () => runs === 3);
    await sleep(200);
    expect(runs).toBe(3);
    await job.stop();
  });

  it('run at once for a due time already past, and after the interval at the most for one further away', async () => {
    const past = { runs: 0 };
    const pastJob = runPeriodically(
      async () => (++past.runs === 1 ? -5_000 : HOUR),
      HOUR,
      () => {},
      { runAtStart: true },
    );
    await until('the run for the past due time', () => past.runs === 2);
    await pastJob.stop();

    let far = 0;
    const farJob = runPeriodically(
      async () => {
        far++;
        return HOUR;
      },
      20,
      () => {},
    );
    await until('runs an interval apart', () => far >= 3);
    await farJob.stop();
  });

  it('run at once when woken, never twice at the same time, and once more after a run that was woken during', async () => {
    let runs = 0;
    let running = 0;
    let most = 0;
    let release: () => void = () => {};
    const job = runPeriodically(
      async () => {
        runs++;
        running++;
        most = Math.max(most, running);
        if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
        running--;
      },
      HOUR,
      () => {},
    );
    job.wake();
    await until('the first run under way', () => runs === 1);
    job.wake();
    job.wake();
    job.wake();
    release();
    await until('the run the wakes asked for', () => runs === 2);
    await sleep(100);
    expect(runs).toBe(2);
    expect(most).toBe(1);
    await job.stop();
    job.wake();
    await sleep(50);
    expect(runs).toBe(2);
  });

  it('report a failing run and run again after the interval', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const job = runPeriodically(
      async () => {
        runs++;
        if (runs === 1) throw new Error('the database blinked');
        return HOUR;
      },
      20,
      (error) => errors.push(error),
    );
    await until('a run after the failure', () => runs >= 2);
    await job.stop();
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('the database blinked');
  });

  it('start a job that wakes on news at once, and wake it on each piece of news; the others after their interval', async () => {
    const news: (() => void)[] = [];
    const runs = { woken: 0, periodic: 0 };
    const jobs = startJobs(
      [
        {
          name: 'woken',
          intervalMs: HOUR,
          wakeOn: (wake) => news.push(wake),
          run: async () => {
            runs.woken++;
          },
        },
        {
          name: 'periodic',
          intervalMs: HOUR,
          run: async () => {
            runs.periodic++;
          },
        },
      ],
      (error) => {
        throw error;
      },
    );
    await until('the run at start', () => runs.woken === 1);
    for (const wake of news) wake();
    await until('the run on news', () => runs.woken === 2);
    await jobs.stop();
    expect(runs.periodic).toBe(0);
  });
});
