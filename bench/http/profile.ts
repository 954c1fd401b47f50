import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) that self time needs. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  /** `name (file:line)`; V8's own buckets keep their names: (garbage collector), (program), (idle). */
  frame: string;
  ms: number;
  percent: number;
}

function frameName(callFrame: CpuProfile['nodes'][number]['callFrame'], root: string): string {
  const name = callFrame.functionName || '(anonymous)';
  if (callFrame.url === '') return name;
  const path = callFrame.url.startsWith('file://') ? callFrame.url.slice('file://'.length) : callFrame.url;
  const shown = path.startsWith(root) ? relative(root, path) : path;
  return `${name} (${shown}:${callFrame.lineNumber + 1})`;
}

/**
 * Self time per function of one profile, largest first: the time spent in the function's own
 * code, not in what it calls, summed over every call path (what DevTools' "Bottom-Up" shows).
 * Percentages are of the busy time: `(idle)` (waiting for I/O, e.g. while the bench measures
 * nginx) is left out.
 */
export function selfTimes(file: string, root: string): SelfTime[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const frameOf = new Map<number, string>();
  for (const node of profile.nodes) frameOf.set(node.id, frameName(node.callFrame, root));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const frame = frameOf.get(id) ?? '(unknown)';
    if (frame === '(idle)') return;
    totals.set(frame, (totals.get(frame) ?? 0) + micros);
    all += micros;
  });
  return [...totals]
    .map(([frame, micros]) => ({ frame, ms: micros / 1000, percent: (100 * micros) / all }))
    .sort((a, b) => b.ms - a.ms);
}

/**
 * The main thread's profile: V8 writes one per thread, and the module loader's hooks thread
 * (tsx registers its hooks off-thread) writes a small one of its own.
 */
export function mainThreadProfileIn(dir: string): string {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (files[0] === undefined) throw new Error(`no .cpuprofile in ${dir}`);
  return files[0];
}
