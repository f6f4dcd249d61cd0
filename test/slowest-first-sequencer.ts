import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (a minute or more: server processes killed and restarted, waits a
 * campaign's re-dial needs, browsers), slowest first. With several files at once, a long file that
 * starts last is the run's tail; vitest orders by the durations it cached on an earlier run, but CI
 * runs from a fresh clone with no cache, where it orders by file size, and some of these files are
 * small. Measured on 2 cores (decision 0054); a file not listed keeps vitest's own order, after these.
 */
export const SLOWEST_FIRST = [
  'test/campaign-crash.test.ts',
  'test/crash-loop.test.ts',
  'test/security.test.ts',
  'test/dashboard-agent-definition.test.ts',
  'test/hostile-input.test.ts',
  'test/deliveries-crash.test.ts',
  'test/processes.test.ts',
  'test/campaign-workers.test.ts',
  'test/suppressions.test.ts',
  'test/dashboard-lists.test.ts',
  'test/calls-api.test.ts',
  'test/dashboard-tools.test.ts',
];

export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rest = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOWEST_FIRST.indexOf(
        path.relative(file.project.config.root, file.moduleId).split(path.sep).join('/'),
      );
      return index === -1 ? SLOWEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: files not listed keep vitest's order.
    return [...rest].sort((a, b) => rank(a) - rank(b));
  }
}
