import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRun } from './bench-run.ts';
import { mainThreadProfileIn, selfTimes } from './profile.ts';

const projectRoot = join(import.meta.dirname, '..', '..');

/** With --profile: the top self-time functions of a profiled nerkh, from its `.cpuprofile`. */
export function printProfile(run: BenchRun, server: keyof BenchRun['profileDirs'], title: string): void {
  const dir = run.profileDirs[server];
  if (!existsSync(dir)) return;
  console.log('');
  console.log(
    `Top self time in ${title}, % of busy time (node --cpu-prof; start, warm-up and every scenario):`,
  );
  for (const entry of selfTimes(mainThreadProfileIn(dir), projectRoot).slice(0, 20)) {
    console.log(`  ${entry.percent.toFixed(1).padStart(5)} %  ${entry.frame}`);
  }
}
