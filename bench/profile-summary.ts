/**
 * Summarises a V8 CPU profile (from BENCH_CPU_PROF=<dir> npm run bench, or node --cpu-prof):
 * the functions with the most self time, and the time spent inside each package or file.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [how many lines, default 25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, limitArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [lines]\n');
  process.exit(2);
}
const limit = Number(limitArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
const sampled = new Map<number, number>();
profile.samples.forEach((id, i) => {
  sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);

const shortUrl = (url: string) => url.replace(/^.*node_modules\//, '').replace(/^.*\/(dist|src|bench)\//, '$1/');
const frameName = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
/** The package (node_modules), our file (dist/…), a node: module, or the pseudo-frame's name. */
function moduleOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  const inModules = url.split('node_modules/')[1];
  if (inModules)
    return inModules
      .split('/')
      .slice(0, inModules.startsWith('@') ? 2 : 1)
      .join('/');
  if (url) return shortUrl(url);
  return `(${functionName.replace(/[()]/g, '')})`;
}

const self = new Map<string, number>();
const selfByModule = new Map<string, number>();
const inclusive = new Map<string, number>();
const PSEUDO = new Set(['(root)', '(idle)', '(program)', '(garbage collector)']);
for (const [id, time] of sampled) {
  const node = nodes.get(id)!;
  self.set(frameName(node), (self.get(frameName(node)) ?? 0) + time);
  // A native frame (a system call such as writev, crypto) is charged to the JavaScript that called it.
  let owner: ProfileNode = node;
  while (!owner.callFrame.url && !PSEUDO.has(owner.callFrame.functionName) && parents.has(owner.id)) {
    owner = nodes.get(parents.get(owner.id)!)!;
  }
  selfByModule.set(moduleOf(owner), (selfByModule.get(moduleOf(owner)) ?? 0) + time);
  const seen = new Set<string>();
  for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
    const name = moduleOf(nodes.get(current)!);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + time);
  }
}

const percent = (time: number) => `${((time / total) * 100).toFixed(1).padStart(5)}%`;
const top = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, time]) => `${percent(time)}  ${name}`)
    .join('\n');
process.stdout.write(`${file}: ${(total / 1e6).toFixed(2)} s sampled\n\nself time\n${top(self)}\n\n`);
process.stdout.write(
  `self time by package or file (native frames charged to their JavaScript caller)\n${top(selfByModule)}\n\n`,
);
process.stdout.write(`time inside (inclusive)\n${top(inclusive)}\n`);
