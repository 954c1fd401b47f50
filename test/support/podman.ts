import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/project-root.ts';

/**
 * Debian's podman, as it works on these machines (docs/deployment.md#the-image): runc with
 * cgroupfs, and a containers.conf without default ulimits (the defaults are refused here), given
 * to podman and podman-compose through CONTAINERS_CONF; containers run with `--ulimit host`.
 * The image tests skip, saying why, when podman, podman-compose, debootstrap or iptables is
 * missing, unless NERKH_REQUIRE_PODMAN=1 (CI: then they fail, naming what is missing), or when NERKH_SKIP_PODMAN gives a reason (CI's second pass: the
 * image is the same whichever Node runs the suite); `npm run test:unit` never runs them.
 */
// iptables: netavark writes each container network's firewall rules with it; without it every
// container fails to start, with netavark's bare "No such file or directory".
const tools = ['/usr/bin/podman', '/usr/bin/podman-compose', '/usr/sbin/debootstrap', '/usr/sbin/iptables'];
const installCommand =
  'apt-get install podman podman-compose debootstrap runc netavark aardvark-dns iptables';
const required = process.env.NERKH_REQUIRE_PODMAN === '1';
const skipReason = process.env.NERKH_SKIP_PODMAN ?? '';
const missingTools = tools.filter((tool) => !existsSync(tool));

export const skipPodman = skipReason !== '' || (missingTools.length > 0 && !required);
if (skipReason !== '') {
  process.stdout.write(`image tests skipped: ${skipReason}\n`);
} else if (skipPodman) {
  process.stdout.write(`image tests skipped: ${missingTools.join(', ')} missing (${installCommand})\n`);
} else if (missingTools.length > 0) {
  throw new Error(`NERKH_REQUIRE_PODMAN=1, but ${missingTools.join(', ')} missing (${installCommand})`);
}

const confDir = mkdtempSync(join(tmpdir(), 'nerkh-podman-'));
const containersConf = join(confDir, 'containers.conf');
writeFileSync(
  containersConf,
  '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n',
);

/** The environment podman and podman-compose run with. */
export const podmanEnv: NodeJS.ProcessEnv = { ...process.env, CONTAINERS_CONF: containersConf };

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command args` with podman's environment; resolves with its exit code and output. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: projectRoot,
        env: { ...podmanEnv, ...options.env },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `podman args`; throws with podman's own message when it fails. */
export async function podman(args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await runCommand('podman', args, timeoutMs === undefined ? {} : { timeoutMs });
  if (result.code !== 0) {
    throw new Error(`podman ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  }
  return result.stdout.trim();
}

/**
 * Runs a long command (a build), its output going to a log rather than the test's; `progress`
 * lines (those matching it) are echoed, so the operator sees how far it got. Throws with the
 * log's tail when it fails.
 */
export function runLogged(
  command: string,
  args: readonly string[],
  options: { progress: RegExp; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: projectRoot,
      env: { ...podmanEnv, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log: string[] = [];
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (line === '') continue;
        log.push(line);
        if (options.progress.test(line)) process.stdout.write(`  ${line}\n`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} ${signal ? `was stopped (${signal})` : `exited ${code}`}:\n${log.slice(-40).join('\n')}`,
          ),
        );
    });
  });
}

/**
 * The CA certificates npm inside a build is to trust: the ones Node here trusts too (a proxy that
 * re-signs TLS has its CA among them), passed as the Dockerfile's `npm_ca` build secret.
 */
export function buildSecretArgs(): string[] {
  const bundle = process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt';
  return existsSync(bundle) ? ['--secret', `id=npm_ca,src=${bundle}`] : [];
}
