import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { projectRoot } from '../../src/project-root.ts';
import { buildSecretArgs, podman, runCommand, runLogged, skipPodman } from '../support/podman.ts';
import { freePort } from '../support/run-cli.ts';
import { sleep, waitFor } from '../support/wait.ts';

/**
 * The production image (Dockerfile) built once and run with Debian's podman as a restricted pod
 * runs it, then compose.yaml brought up and down with podman-compose, as an operator would
 * (docs/deployment.md#the-image). No image registry is reached: scripts/node-base-image.sh makes
 * the base images (kept between runs, as is the build's layer cache under the tag below); the
 * exchanges are nerkh's own simulator, from the same image. Prints the image's size and the
 * instance's start-up and stop times.
 */
const image = 'localhost/nerkh:test';
/** The OCI labels' version and revision, passed to the build as an operator passes them. */
const version = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string })
  .version;
let revision = '';
const run = `nerkh-test-${randomBytes(3).toString('hex')}`;
const minutes = 60_000;

/** Polls `check` once a second (each try runs podman or a request) until it holds. */
function poll<T>(check: () => Promise<T | null | false>, timeoutMs: number, what: string): Promise<T> {
  return waitFor(
    async () => {
      const value = await check();
      if (value === null || value === false) await sleep(1000);
      return value;
    },
    timeoutMs,
    what,
  );
}

/**
 * `nerkh ARGS --json` inside a running container, as the image's user. Tried again (twice at most)
 * when it could not connect to PostgreSQL in time: on a machine loaded many times over, a command
 * that starts as it connects can wait past its 5 s connection timeout before it reads the answer.
 */
async function nerkhIn(container: string, args: string[]): Promise<Record<string, unknown>> {
  for (let attempt = 1; ; attempt += 1) {
    const result = await runCommand('podman', ['exec', container, 'nerkh', ...args, '--json']);
    if (result.code === 0) return JSON.parse(result.stdout) as Record<string, unknown>;
    if (attempt === 3 || !result.stderr.includes('connection timeout')) {
      throw new Error(
        `nerkh ${args.join(' ')} in ${container} exited ${result.code}: ${result.stderr.trim()}`,
      );
    }
    process.stdout.write(`compose: nerkh ${args[0]} ${args[1]} retried: ${result.stderr.trim()}\n`);
  }
}

/** The status GET /v1/rates answers with `key`, asked from inside `container` (its API port). */
async function ratesStatusIn(container: string, key: string): Promise<number> {
  const script =
    "fetch('http://127.0.0.1:8080/v1/rates',{headers:{'X-API-Key':process.argv[1]}}).then(r=>console.log(r.status))";
  return Number(await podman(['exec', container, 'node', '-e', script, key]));
}

beforeAll(async () => {
  if (skipPodman) return;
  const started = Date.now();
  await runLogged('scripts/node-base-image.sh', [], { progress: /^base images:/, timeoutMs: 15 * minutes });
  revision = (await runCommand('git', ['rev-parse', 'HEAD'])).stdout.trim();
  const labels = ['--build-arg', `VERSION=${version}`, '--build-arg', `REVISION=${revision}`];
  await runLogged(
    'podman',
    ['build', '--pull=never', '--format', 'docker', ...buildSecretArgs(), ...labels, '-t', image, '.'],
    { progress: /^\[\d\/\d\] STEP \d+\/\d+: (FROM|RUN)/, timeoutMs: 20 * minutes },
  );
  const megabytes = async (name: string) =>
    (Number(await podman(['image', 'inspect', '--format', '{{.Size}}', name])) / 1e6).toFixed(0);
  process.stdout.write(
    `image: ${image}, ${await megabytes(image)} MB (its base debian:bookworm-slim ${await megabytes('docker.io/library/debian:bookworm-slim')} MB), base and build ready in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
}, 35 * minutes);

describe.skipIf(skipPodman)('the production image', () => {
  const network = `${run}-net`;
  const volume = `${run}-data`;
  const simulator = `${run}-simulator`;
  const container = `${run}-nerkh`;
  let base = '';
  let key = '';

  beforeAll(async () => {
    await podman(['network', 'create', network]);
    const words = (text: string) => text.split(' ');
    await podman([
      ...words('run --detach --ulimit host --no-healthcheck --name'),
      simulator,
      '--network',
      network,
      image,
      ...words('simulate-exchange --host 0.0.0.0 --port 9000 --seed 7'),
    ]);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const sources = `http://${simulator}:9000`;
    // As Kubernetes runs it under the restricted Pod Security Standard (runAsNonRoot with the
    // image's numeric user, readOnlyRootFilesystem, every capability dropped, no privilege
    // escalation), writable only where nerkh writes: the data volume and a tmpfs on /tmp.
    // --read-only-tmpfs=false: podman would otherwise add writable /tmp, /var/tmp and /run itself.
    await podman([
      ...words('create --ulimit host --name'),
      container,
      ...words('--read-only --read-only-tmpfs=false --tmpfs /tmp --cap-drop=ALL'),
      ...words('--security-opt=no-new-privileges --user 10001:10001'),
      '--network',
      network,
      '--publish',
      `127.0.0.1:${port}:8080`,
      '--volume',
      `${volume}:/var/lib/nerkh`,
      ...['--env', `NERKH_BINANCE_WS_URL=${sources.replace('http', 'ws')}`],
      ...['--env', `NERKH_BINANCE_REST_URL=${sources}`, '--env', `NERKH_NOBITEX_URL=${sources}`],
      image,
    ]);
  }, 2 * minutes);

  /** When the running test fails, prints the end of nerkh's log and the simulator's (what CI keeps). */
  beforeEach(() => {
    onTestFailed(async () => {
      for (const name of [container, simulator]) {
        const logs = await runCommand('podman', ['logs', '--tail', '40', name]);
        process.stdout.write(`--- ${name}\n${logs.stdout}${logs.stderr}`);
      }
    });
  });

  afterAll(async () => {
    await runCommand('podman', ['rm', '--force', '--volumes', '--time', '0', container, simulator]);
    await runCommand('podman', ['volume', 'rm', '--force', volume]);
    await runCommand('podman', ['network', 'rm', '--force', network]);
  }, 2 * minutes);

  it(
    'starts as an unprivileged numeric user under tini, read-only and without capabilities, and serves /v1/health',
    async () => {
      const started = Date.now();
      await podman(['start', container]);
      await poll(
        async () => (await fetch(`${base}/v1/health`).catch(() => null))?.status === 200,
        60_000,
        'GET /v1/health answering 200',
      );
      const startup = Date.now() - started;

      // Numeric, so that runAsNonRoot can tell it is not root without reading /etc/passwd.
      expect(await podman(['image', 'inspect', '--format', '{{.Config.User}}', image])).toBe('10001:10001');
      // Every process in the container, tini as PID 1 and node under it, runs as that user.
      const processes = (await podman(['top', container, 'user', 'pid', 'args']))
        .split('\n')
        .slice(1)
        .map((line) => /^(\S+)\s+(\d+)\s+(.*)$/.exec(line.trim())?.slice(1) ?? []);
      expect(processes.map(([user]) => user)).toEqual(processes.map(() => 'nerkh'));
      expect(processes.find(([, pid]) => pid === '1')?.[2]).toMatch(/^tini -- nerkh serve/);
      expect(processes.some(([, pid, args]) => pid !== '1' && args?.startsWith('node '))).toBe(true);
      expect(await podman(['exec', container, 'id', '-u'])).toBe('10001');
      // The image's own health check passes.
      expect((await runCommand('podman', ['healthcheck', 'run', container])).code).toBe(0);
      // Node runs with no capability at all and cannot gain any (no-new-privileges).
      const status = await podman(['exec', container, 'cat', '/proc/1/status']);
      expect(status).toMatch(/^CapEff:\s+0{16}$/m);
      expect(status).toMatch(/^CapBnd:\s+0{16}$/m);
      expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
      // Nothing but the volume and /tmp is writable.
      const touch = await runCommand('podman', ['exec', container, 'touch', '/app/written']);
      expect(touch.stderr).toContain('Read-only file system');
      expect(await podman(['exec', container, 'sh', '-c', 'touch /tmp/t /var/lib/nerkh/t && echo ok'])).toBe(
        'ok',
      );
      process.stdout.write(
        `image: runs as ${processes[0]?.[0]} (uid 10001), read-only, no capabilities; healthy ${startup} ms after start\n`,
      );
    },
    2 * minutes,
  );

  it('carries its OCI labels, and node with the bundle but no npm, tsx or esbuild', async () => {
    const labels = JSON.parse(
      await podman(['image', 'inspect', '--format', '{{json .Config.Labels}}', image]),
    );
    expect(labels).toMatchObject({
      'org.opencontainers.image.source': 'https://github.com/nerkh/nerkh',
      'org.opencontainers.image.licenses': 'MIT',
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.revision': revision,
    });
    const found = await podman([
      ...['exec', container, 'sh', '-c'],
      'for c in node npm npx tsx esbuild; do command -v $c || true; done; ls /app/node_modules /app/dist',
    ]);
    expect(found.split('\n')).toEqual([
      '/usr/local/bin/node',
      '/app/dist:',
      'nerkh.js',
      'nerkh.js.LEGAL.txt',
      '',
      '/app/node_modules:',
      ...['argparse', 'better-sqlite3', 'bindings', 'entities', 'file-uri-to-path', 'linkify-it'],
      ...['markdown-it', 'mdurl', 'punycode.js', 'uc.micro', 'vazirmatn'],
    ]);
  });

  it(
    'serves /v1/rates to a key issued inside the container, and refuses it without one',
    async () => {
      const issued = await nerkhIn(container, ['keys', 'issue', '--org', 'Image test', '--purpose', 'test']);
      key = String(issued.key);
      const response = await fetch(`${base}/v1/rates`, { headers: { 'X-API-Key': key } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { rates: { symbol: string; sell_irt: number }[] };
      expect(body.rates.find((rate) => rate.symbol === 'BTC')?.sell_irt).toBeGreaterThan(0);
      expect((await fetch(`${base}/v1/rates`)).status).toBe(401);
      // The site's pages and the one font file the image keeps of its package.
      const page = await (await fetch(`${base}/`)).text();
      const font = /\/fonts\/vazirmatn-[^"')]+\.woff2/.exec(page)?.[0];
      expect((await fetch(`${base}${font}`)).headers.get('content-type')).toBe('font/woff2');
    },
    minutes,
  );

  it(
    'stops cleanly on SIGTERM within its shutdown bound',
    async () => {
      const started = Date.now();
      // podman stop sends the image's stop signal (SIGTERM) to tini, which hands it to node, and
      // kills only after 30 s; nerkh's own bound is its drain (10 s by default) and then 15 s.
      await podman(['stop', '--time', '30', container], minutes);
      const stopped = Date.now() - started;
      expect(await podman(['inspect', '--format', '{{.State.ExitCode}}', container])).toBe('0');
      expect(stopped).toBeLessThan(25_000);
      // The signal reached node through tini, and node finished its work and exited 0 itself.
      const logs = await runCommand('podman', ['logs', container]);
      expect(logs.stdout).toContain('"signal":"SIGTERM","msg":"shutting down');
      process.stdout.write(`image: stopped on SIGTERM in ${stopped} ms, exit code 0\n`);
    },
    minutes,
  );

  it(
    'keeps its keys and snapshot across a restart (the volume)',
    async () => {
      await podman(['start', container]);
      const response = await poll(
        async () => {
          const answer = await fetch(`${base}/v1/rates`, { headers: { 'X-API-Key': key } }).catch(() => null);
          return answer?.status === 200 ? answer : null;
        },
        60_000,
        'the same key answered after the restart',
      );
      expect(((await response.json()) as { rates: unknown[] }).rates.length).toBeGreaterThan(0);
      const listed = (await nerkhIn(container, ['keys', 'list'])) as { keys: { org: string }[] };
      expect(listed.keys.map((entry) => entry.org)).toContain('Image test');
    },
    2 * minutes,
  );
});

describe.skipIf(skipPodman)('compose.yaml on the image', () => {
  const project = `${run}-compose`;
  /** podman-compose's container name: the API's replicas are `api_1` and `api_2`. */
  const containerOf = (service: string, replica = 1) => `${project}_${service}_${replica}`;
  const apis = [containerOf('api', 1), containerOf('api', 2)];
  const services = ['postgres', 'redis', 'api', 'collector-1', 'collector-2', 'balancer'];
  const containers = services.flatMap((service) => (service === 'api' ? apis : [containerOf(service)]));
  let balancer = '';
  let secrets = '';
  let env: NodeJS.ProcessEnv = {};

  /** When the running test fails, prints the end of every service's log (what CI keeps of it). */
  function logsOnFailure() {
    onTestFailed(async () => {
      for (const container of containers) {
        const logs = await runCommand('podman', ['logs', '--tail', '30', container]);
        process.stdout.write(`--- ${container}\n${logs.stdout}${logs.stderr}`);
      }
    });
  }

  function compose(args: string[], timeoutMs = 5 * minutes) {
    return runCommand(
      'podman-compose',
      [
        '--project-name',
        project,
        '--file',
        'compose.yaml',
        '--file',
        'test/ops/compose.simulator.yaml',
        ...args,
      ],
      { env, timeoutMs },
    );
  }

  beforeAll(async () => {
    const port = await freePort();
    balancer = `http://127.0.0.1:${port}`;
    // The secrets as an operator makes them (scripts/compose-secrets.sh), in a folder of this run's.
    secrets = join(mkdtempSync(join(tmpdir(), 'nerkh-compose-secrets-')), 'secrets');
    env = {
      NERKH_IMAGE: image,
      NERKH_PORT: String(port),
      NERKH_PUBLIC_URL: balancer,
      NERKH_SECRETS_DIR: secrets,
    };
    await runLogged('scripts/compose-secrets.sh', [], {
      progress: /^compose secrets:/,
      env,
      timeoutMs: minutes,
    });
    // The services' own images, from debian:bookworm-slim and Debian's packages (ops/compose/);
    // built here so that podman-compose, which would build them without a build secret or the
    // Docker format (its health checks), only runs them.
    const serviceImages: [name: string, context: string][] = [
      ['nerkh-postgres:15', 'ops/compose/postgres'],
      ['nerkh-redis:7', 'ops/compose/redis'],
      ['nerkh-haproxy:2.6', 'ops/compose/haproxy'],
    ];
    for (const [name, context] of serviceImages) {
      await runLogged('podman', ['build', '--pull=never', '--format', 'docker', '-t', name, context], {
        progress: /^STEP \d+\/\d+: RUN/,
        timeoutMs: 10 * minutes,
      });
    }
    const started = Date.now();
    const up = await compose(['--podman-run-args=--ulimit=host', 'up', '--detach', '--no-build']);
    expect(up.code, up.stderr).toBe(0);
    await poll(
      async () => (await fetch(`${balancer}/v1/health`).catch(() => null))?.status === 200,
      2 * minutes,
      'GET /v1/health through the balancer',
    );
    process.stdout.write(`compose: up and serving through the balancer in ${Date.now() - started} ms\n`);
  }, 25 * minutes);

  afterAll(async () => {
    // The image declares its data directory a volume: each container got an anonymous one, which
    // `down` leaves behind.
    const listed = await runCommand('podman', [
      'ps',
      '--all',
      '--filter',
      `label=io.podman.compose.project=${project}`,
      '--format',
      '{{.Names}}',
    ]);
    const volumes = new Set([`${project}_pgdata`]);
    for (const container of listed.stdout.split('\n').filter((name) => name !== '')) {
      const mounts = await runCommand('podman', [
        'inspect',
        '--format',
        '{{range .Mounts}}{{.Name}} {{end}}',
        container,
      ]);
      for (const name of mounts.stdout.split(/\s+/)) if (name !== '') volumes.add(name);
    }
    await compose(['down', '--timeout', '30']);
    await runCommand('podman', ['volume', 'rm', '--force', ...volumes]);
    await runCommand('podman', ['network', 'rm', '--force', `${project}_default`]);
    if (secrets !== '') rmSync(join(secrets, '..'), { recursive: true, force: true });
  }, 5 * minutes);

  it(
    'passes every service health check',
    async () => {
      logsOnFailure();
      for (const container of containers) {
        await poll(
          async () => (await runCommand('podman', ['healthcheck', 'run', container])).code === 0,
          2 * minutes,
          `${container}'s health check`,
        );
      }
    },
    5 * minutes,
  );

  it(
    'keeps the secrets in files: Redis asks for its password, and no container shows one in its settings',
    async () => {
      logsOnFailure();
      const redisPing = (auth: string[]) =>
        runCommand('podman', ['exec', ...auth, containerOf('redis'), 'redis-cli', 'ping']);
      expect((await redisPing([])).stdout).toContain('NOAUTH');
      const password = readFileSync(join(secrets, 'redis_password'), 'utf8').trim();
      expect((await redisPing(['--env', `REDISCLI_AUTH=${password}`])).stdout.trim()).toBe('PONG');
      // Each instance reached Redis with it: the limits are shared.
      const health = (await (await fetch(`${balancer}/v1/health`)).json()) as {
        checks: Record<string, { observedValue: string }[]>;
      };
      expect(health.checks['limiter:shared']?.[0]?.observedValue).toBe('shared');
      const values = ['postgres_password', 'redis_password', 'form_secret'].map((name) =>
        readFileSync(join(secrets, name), 'utf8').trim(),
      );
      for (const service of services) {
        const settings = await podman(['inspect', '--format', '{{json .Config.Env}}', containerOf(service)]);
        for (const value of values) expect(settings, service).not.toContain(value);
      }
    },
    minutes,
  );

  it(
    'refuses to start PostgreSQL, Redis or nerkh without its password',
    async () => {
      const refusal = async (name: string, args: string[]) => {
        const result = await runCommand('podman', [
          'run',
          '--rm',
          '--ulimit',
          'host',
          '--name',
          `${run}-${name}`,
          ...args,
        ]);
        return { code: result.code, said: `${result.stdout}${result.stderr}` };
      };
      expect(await refusal('postgres', ['nerkh-postgres:15'])).toMatchObject({
        code: 1,
        said: expect.stringContaining('set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE'),
      });
      expect(
        await refusal('redis', ['--env', 'REDIS_PASSWORD_FILE=/run/secrets/redis_password', 'nerkh-redis:7']),
      ).toMatchObject({
        code: 1,
        said: expect.stringContaining('cannot read REDIS_PASSWORD_FILE=/run/secrets/redis_password'),
      });
      const nerkh = await refusal('nerkh', [
        ...['--env', 'NERKH_DATABASE_URL_FILE=/run/secrets/database_url', image, 'serve'],
      ]);
      expect(nerkh.code).toBe(1);
      expect(nerkh.said).toContain('NERKH_DATABASE_URL_FILE cannot be read: ENOENT');
    },
    2 * minutes,
  );

  it(
    'serves a key issued inside a container through the balancer, from both APIs',
    async () => {
      logsOnFailure();
      const issued = await nerkhIn(containerOf('collector-1'), [
        'keys',
        'issue',
        '--org',
        'Compose test',
        '--purpose',
        'test',
      ]);
      const key = String(issued.key);
      for (let i = 0; i < 4; i += 1) {
        const response = await fetch(`${balancer}/v1/rates`, { headers: { 'X-API-Key': key } });
        expect(response.status).toBe(200);
        const body = (await response.json()) as { rates: { symbol: string; url: string }[] };
        // The collectors wrote each row's link for the balancer's origin.
        expect(body.rates.find((rate) => rate.symbol === 'BTC')?.url.startsWith(balancer)).toBe(true);
      }
      // Shared round-robin: each instance's access log (written a moment later) has some of them.
      for (const api of apis) {
        await poll(
          async () =>
            (await podman(['logs', api]))
              .split('\n')
              .some((line) => line.includes('"url":"/v1/rates"') && line.includes(`"key_id":"${issued.id}"`)),
          10_000,
          `${api}'s access log showing its share`,
        );
      }
      // Each instance serves it on its own too, the one that did not issue it included.
      await poll(
        async () => (await ratesStatusIn(apis[1] as string, key)) === 200,
        10_000,
        'the second replica admitting the key',
      );
      expect(await ratesStatusIn(apis[0] as string, key)).toBe(200);

      // Revoked from a third container, the key is refused (403 key-revoked) by both instances.
      const revoked = Date.now();
      await nerkhIn(containerOf('collector-1'), ['keys', 'revoke', String(issued.id)]);
      for (const api of apis) {
        await poll(
          async () => (await ratesStatusIn(api, key)) === 403,
          10_000,
          `${api} refusing the revoked key`,
        );
      }
      expect((await fetch(`${balancer}/v1/rates`, { headers: { 'X-API-Key': key } })).status).toBe(403);
      process.stdout.write(
        `compose: the revocation refused by both API replicas within ${Date.now() - revoked} ms\n`,
      );
    },
    2 * minutes,
  );

  it(
    'replaces the API replicas one at a time (rolling-restart.sh) while no request fails',
    async () => {
      logsOnFailure();
      const issued = await nerkhIn(containerOf('collector-1'), [
        'keys',
        'issue',
        '--org',
        'Rolling',
        '--purpose',
        'test',
        // The client below sends about 40 requests a second, far past the default 60 a minute:
        // the drill is about the restart, not the limit.
        '--limit',
        '100000',
      ]);
      const key = String(issued.key);
      // A known key: served by each replica before the restart.
      for (const api of apis)
        await poll(async () => (await ratesStatusIn(api, key)) === 200, 10_000, `${api} admitting the key`);
      const idsBefore = await Promise.all(apis.map((api) => podman(['inspect', '--format', '{{.Id}}', api])));
      const statuses: Record<string, number> = {};
      let sending = true;
      const client = (async () => {
        while (sending) {
          const status = await fetch(`${balancer}/v1/rates`, { headers: { 'X-API-Key': key } }).then(
            async (response) => {
              await response.arrayBuffer();
              return String(response.status);
            },
            (error: Error) => `error:${error.message}`,
          );
          statuses[status] = (statuses[status] ?? 0) + 1;
          await sleep(20);
        }
      })();
      const started = Date.now();
      const restart = await runCommand('ops/compose/rolling-restart.sh', [], {
        env: {
          ...env,
          COMPOSE:
            'podman-compose --podman-run-args=--ulimit=host --file compose.yaml --file test/ops/compose.simulator.yaml',
          ENGINE: 'podman',
          COMPOSE_PROJECT_NAME: project,
        },
        timeoutMs: 10 * minutes,
      });
      const took = Date.now() - started;
      sending = false;
      await client;
      process.stdout.write(`${restart.stdout}${restart.stderr}`);
      expect(restart.code, restart.stderr).toBe(0);
      const idsAfter = await Promise.all(apis.map((api) => podman(['inspect', '--format', '{{.Id}}', api])));
      expect(idsAfter.filter((id) => idsBefore.includes(id))).toEqual([]);
      const sent = Object.values(statuses).reduce((sum, count) => sum + count, 0);
      process.stdout.write(
        `compose: rolling restart of ${apis.length} replicas in ${took} ms; through the balancer: sent ${sent}, statuses ${JSON.stringify(statuses)}\n`,
      );
      expect(statuses).toEqual({ 200: sent });
    },
    12 * minutes,
  );

  it(
    'stops every nerkh instance cleanly',
    async () => {
      logsOnFailure();
      // The collectors first, as in production, where the exchanges outlive them: a collector
      // reconnecting to a simulator already stopped waits in getaddrinfo for the network's DNS
      // to give up on the name, and a process cannot exit while libuv's thread pool runs a
      // lookup (measured: exit held 51 s by a pool job), which podman then kills (137).
      const collectorsStop = await compose(['stop', '--timeout', '30', 'collector-1', 'collector-2']);
      expect(collectorsStop.code, collectorsStop.stderr).toBe(0);
      const stop = await compose(['stop', '--timeout', '30']);
      expect(stop.code, stop.stderr).toBe(0);
      for (const container of [...apis, containerOf('collector-1'), containerOf('collector-2')]) {
        // How it ended, to tell a stop cut short (137: killed after the timeout) from a crash, an
        // out-of-memory kill or a restart.
        const state = await podman([
          'inspect',
          '--format',
          '{{.State.ExitCode}} oom={{.State.OOMKilled}} restarts={{.RestartCount}} started={{.State.StartedAt}} finished={{.State.FinishedAt}}',
          container,
        ]);
        expect(state.split(' ')[0], `${container}: ${state}`).toBe('0');
      }
    },
    5 * minutes,
  );
});
