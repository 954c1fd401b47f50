import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { binPath, freePort, runCli } from '../support/run-cli.ts';
import { waitFor } from '../support/wait.ts';

const curlInstalled = ['/usr/bin/curl', '/usr/local/bin/curl', '/bin/curl'].some((path) => existsSync(path));

/**
 * Runs one printed line exactly as a user would paste it into a shell; without curl on the
 * machine, does what the line says with fetch (its URL, its -H header, -i for the status line).
 */
async function runPrinted(line: string): Promise<string> {
  if (curlInstalled) {
    return new Promise((resolve, reject) => {
      execFile('/bin/sh', ['-c', line], { timeout: 10_000 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      );
    });
  }
  const command = line.replace(/\s+#.*$/, '');
  const header = /-H '([^:]+): ([^']+)'/.exec(command);
  const url = /'?(https?:\/\/[^\s']+)'?\s*$/.exec(command)?.[1] as string;
  const response = await fetch(url, {
    headers: header ? { [header[1] as string]: header[2] as string } : {},
  });
  const body = await response.text();
  if (!/\s-i\s/.test(command)) return body;
  const headers = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\r\n');
  return `HTTP/1.1 ${response.status} ${response.statusText}\r\n${headers}\r\n\r\n${body}`;
}

let child: ChildProcess | null = null;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

describe('nerkh demo', () => {
  it('prints curl lines that work as printed, and stops cleanly on Ctrl-C', { timeout: 60_000 }, async () => {
    const port = await freePort();
    child = spawn(process.execPath, [binPath, 'demo'], {
      env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const output = await new Promise<string>((resolve, reject) => {
      let text = '';
      child?.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('Ctrl-C')) resolve(text);
      });
      void exited.then((code) => reject(new Error(`demo exited ${code} before it was ready: ${stderr}`)));
    });

    const curlLines = output
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('curl '));
    expect(curlLines).toHaveLength(4);
    const [allRates, oneRate, health, noKey] = curlLines as [string, string, string, string];
    expect(allRates).toContain(`http://127.0.0.1:${port}/v1/rates`);
    expect(allRates).toMatch(/-H 'X-API-Key: nerkh_[0-9A-Za-z]{22}_[0-9A-Za-z]{6}'/);

    const all = JSON.parse(await runPrinted(allRates));
    expect(all.side).toBe('sell');
    expect(all.count).toBeGreaterThan(100);
    expect(all.count).toBe(all.rates.length);
    const usdt = all.rates.find((row: { symbol: string }) => row.symbol === 'USDT');
    expect(usdt.sell_irt).toBe(all.usdt_irt);
    expect(Number.isInteger(all.usdt_irt)).toBe(true);

    const btc = JSON.parse(await runPrinted(oneRate));
    expect(btc.count).toBe(1);
    expect(btc.rates[0].symbol).toBe('BTC');
    expect(btc.rates[0].sell_usdt).toBeGreaterThan(0);

    expect(['pass', 'warn']).toContain(JSON.parse(await runPrinted(health)).status);

    const unauthorized = await runPrinted(noKey);
    expect(unauthorized).toMatch(/^HTTP\/1\.1 401/);
    expect(unauthorized).toMatch(/content-type: application\/problem\+json/i);

    const dataDir = /temporary directory (\S+)/.exec(output)?.[1] as string;
    expect(existsSync(dataDir)).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('runs a preset with Binance geo-blocked from the start: coins from the fallback, and a line to lift the block', {
    timeout: 60_000,
  }, async () => {
    const port = await freePort();
    child = spawn(
      process.execPath,
      [binPath, 'demo', '--preset', 'binance-failover', '--geo-block', 'binance'],
      {
        env: { ...process.env, PORT: String(port), LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
    const output = await new Promise<string>((resolve, reject) => {
      let text = '';
      child?.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('Ctrl-C')) resolve(text);
      });
      void exited.then((code) => reject(new Error(`demo exited ${code} before it was ready`)));
    });
    expect(output).toMatch(
      /^Sources: \S+\/sources\/binance-failover\.yaml \(binance, nobitex, wallex\), at the simulator\.$/m,
    );
    const lift = output
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line.includes('_simulator/fault'));
    expect(lift).toMatch(
      /^curl -s -X POST -d '\{"fault":"none","target":"binance"\}' http:\/\/127\.0\.0\.1:\d+\/_simulator\/fault$/,
    );
    const key = /X-API-Key: (\S+)'/.exec(output)?.[1] as string;
    const response = await fetch(`http://127.0.0.1:${port}/v1/rates`, { headers: { 'x-api-key': key } });
    const rates = (await response.json()) as { source: string; count: number; updated_at: string };
    expect(rates.source).toBe('nobitex');
    // The collector reports every few seconds, apart from its commits: a report written before
    // Binance's first 451 still says "connecting", and one written before the first commit counts
    // no coin for Nobitex yet. So wait (bounded) for a report made once the served snapshot was.
    type Health = { checks: Record<string, [{ coins: number; output: string; time: string | null }]> };
    const health = await waitFor(
      async () => {
        const body = (await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json()) as Health;
        const reportedAt = body.checks['collector:report']?.[0].time;
        return reportedAt && Date.parse(reportedAt) >= Date.parse(rates.updated_at) ? body : null;
      },
      15_000,
      'a collector report made after the first commit',
    );
    expect(health.checks['binance:connection']?.[0]).toMatchObject({
      status: 'warn',
      observedValue: 'down',
      output: expect.stringMatching(
        // REST's 451 carries Binance's message; the stream upgrade's has an empty body.
        /^HTTP 451(: Service unavailable from a restricted location according to| Unavailable For Legal Reasons)/,
      ),
      coins: 0,
    });
    expect(health.checks['nobitex:connection']?.[0].coins).toBe(rates.count);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('stops before starting anything when the sources file has a mistake, naming its place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerkh-demo-sources-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'sources.yaml');
    writeFileSync(
      file,
      'sources:\n  - { name: wallex, kind: wallex, url: "https://api.wallex.ir", poll_seconds: 1 }\n',
    );
    const result = await runCli(['demo', '--sources', file], { PORT: String(await freePort()) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        `nerkh: sources file ${file} has 2 mistakes:`,
        `${file}:1:1: /: missing required field "routes"`,
        `${file}:2:79: /sources/0/poll_seconds: must be >= 3`,
        '',
      ].join('\n'),
    );
  });

  it('fails with a one-line reason when the port is taken', { timeout: 30_000 }, async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      const result = await runCli(['demo'], { PORT: String(port) });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `nerkh: port ${port} on 127.0.0.1 is already in use; stop what holds it or set PORT to a free port`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
