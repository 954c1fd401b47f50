import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pinned } from './pinned.ts';

/** One load run's figures, as wrk reports them. */
export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses with status ≥ 400 (a 429 here means the bench was rate-limited: the run is invalid). */
  failed: number;
  socketErrors: number;
  requests: number;
  /** Response bytes (headers and body) per request: shows both servers sent the same body. */
  bytesPerResponse: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  /** File with one API key a line; requests rotate through them so no key hits its limit. */
  keysFile?: string;
  /** Line of the keys file the rotation starts at (so consecutive runs can cover every key). */
  keyOffset?: number;
  cpu?: number;
  workDir: string;
}

/**
 * wrk with a Lua script that rotates X-API-Key through the keys file per request. `done` reports
 * wrk's own count of statuses ≥ 400 and socket errors, so a run that was rate-limited (429) or
 * failed cannot pass for a fast one. No `response` callback: it would make wrk parse every
 * response in Lua and become the bottleneck (https://github.com/wg/wrk/blob/master/SCRIPTING).
 */
function luaScript(options: LoadOptions): string {
  const headerLines = Object.entries(options.headers ?? {})
    .map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
    .join('\n');
  return `
${headerLines}
local keys = {}
${options.keysFile ? `for line in io.lines(${JSON.stringify(options.keysFile)}) do keys[#keys + 1] = line end` : ''}
local counter = 0
local threadCount = 0
setup = function(thread)
  thread:set("id", threadCount)
  threadCount = threadCount + 1
end
init = function(args)
  counter = ${options.keyOffset ?? 0} + id * 7919
end
request = function()
  if #keys > 0 then
    counter = counter + 1
    wrk.headers["X-API-Key"] = keys[(counter % #keys) + 1]
  end
  return wrk.format()
end
done = function(summary, latency, requests)
  io.write(string.format('BENCH_RESULT {"rps":%f,"p50":%f,"p99":%f,"failed":%d,"socketErrors":%d,"requests":%d,"bytes":%d}\\n',
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.requests, summary.bytes))
end
`;
}

export async function runWrk(options: LoadOptions): Promise<LoadResult> {
  const script = join(options.workDir, `wrk-${process.hrtime.bigint()}.lua`);
  writeFileSync(script, luaScript(options));
  const wrkArgs = [
    '-t1',
    `-c${options.connections}`,
    `-d${options.durationSeconds}s`,
    '--timeout',
    '5s',
    '-s',
    script,
    options.url,
  ];
  const [command, args] = pinned(options.cpu, 'wrk', wrkArgs);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      text += String(chunk);
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`wrk failed (${code}): ${text}`)),
    );
  });
  const line = output.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
  if (!line) throw new Error(`wrk printed no result: ${output}`);
  const parsed = JSON.parse(line.slice('BENCH_RESULT '.length)) as {
    rps: number;
    p50: number;
    p99: number;
    failed: number;
    socketErrors: number;
    requests: number;
    bytes: number;
  };
  return {
    requestsPerSecond: parsed.rps,
    p50Ms: parsed.p50,
    p99Ms: parsed.p99,
    failed: parsed.failed,
    socketErrors: parsed.socketErrors,
    requests: parsed.requests,
    bytesPerResponse: parsed.requests > 0 ? parsed.bytes / parsed.requests : 0,
  };
}
