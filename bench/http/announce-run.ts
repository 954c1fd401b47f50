import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';
import type { BenchRun } from './bench-run.ts';
import { nginxBinary } from './nginx.ts';
import { estimatedSeconds, isLoadPart, reloadSeconds } from './parts.ts';
import { measuredScenarios } from './scenarios.ts';
import { burstWindowSeconds, outagePhaseSeconds } from './workload.ts';

function toolVersion(command: string, args: string[]): string {
  const run = spawnSync(command, args, { encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`.trim().split('\n')[0] ?? '?';
}

/**
 * The run's first lines: the machine, Node and the tools' versions, the parts and how long they
 * take, the layout and the load average, so that a figure is read with what it ran on.
 */
export function announceRun(run: BenchRun): void {
  const { parts, rounds, seconds, connections, warmUpSeconds } = run.options;
  const [load1] = loadavg();
  const loadServers = [
    ...(parts.has('base') ? ['nginx', 'nerkh (and node:http and raw TCP on the full list)'] : ['nerkh']),
    ...(parts.has('redis') ? ['nerkh with Redis'] : []),
    ...(parts.has('peers') ? ['3 peers'] : []),
  ];
  console.log(
    `nerkh HTTP bench — ${cpus()[0]?.model ?? 'cpu'} ×${availableParallelism()}, node ${process.version}, ` +
      `${parts.has('base') ? `${toolVersion(nginxBinary() as string, ['-v'])}, ` : ''}${toolVersion('wrk', ['-v'])}`,
  );
  console.log(
    `parts: ${[...parts].join(', ')}; about ${Math.ceil(estimatedSeconds(parts, { rounds, seconds, warmUpSeconds, burstWindowSeconds, outagePhaseSeconds }) / 60)} min`,
  );
  if ([...parts].some(isLoadPart)) {
    console.log(
      `servers on CPU ${run.serverCpu ?? 'any'}, wrk on CPU ${run.loadCpu ?? 'any'}; ${rounds} rounds × ${measuredScenarios(parts).length} scenarios × ${loadServers.join(', ')} (all but nerkh and nginx on the full list only) × ${seconds} s (each after ${reloadSeconds} s of the same load), ${connections} connections, after ${warmUpSeconds} s of load on each nerkh; load average ${load1?.toFixed(2)}`,
    );
  }
  if ((load1 ?? 0) > 0.5) console.log('warning: the machine is busy; figures will be disturbed');
  if (run.options.profile)
    console.log('profiling: nerkh runs under --cpu-prof, its req/s are lower than without');
}
