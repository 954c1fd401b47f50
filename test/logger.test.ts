import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger, flatLineLogger } from '../src/logger.ts';

const loggerModule = fileURLToPath(new URL('../src/logger.ts', import.meta.url));

/** Runs `body` in a fresh Node process with `bufferedStdout` imported; resolves to its stdout over time. */
function runWithBufferedStdout(body: string): {
  seen: () => string;
  exited: Promise<{ code: number | null; stdout: string }>;
} {
  const script = `import { bufferedStdout, createLogger } from ${JSON.stringify(loggerModule)};\n${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  return {
    seen: () => stdout,
    exited: new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout }))),
  };
}

describe('logger', () => {
  it('stamps each line with the ISO 8601 time of the moment it is written', () => {
    const lines: string[] = [];
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger('info', capture);
    const before = Date.now();
    logger.info('one');
    logger.info('two');
    const after = Date.now();
    for (const line of lines) {
      const { time } = JSON.parse(line) as { time: string };
      expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(time)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(time)).toBeLessThanOrEqual(after);
    }
  });

  it("redacts key fields, also on the access log's flat-line logger", () => {
    const lines: string[] = [];
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger('info', capture);
    logger.info(
      { key: 'nerkh_a', nested: { apiKey: 'nerkh_b' }, headers: { 'x-api-key': 'nerkh_c' } },
      'full',
    );
    flatLineLogger(logger).info({ key: 'nerkh_d', apiKey: 'nerkh_e', n: 1 }, 'flat');
    expect(lines.join('')).not.toMatch(/nerkh_[a-e]/);
    expect(JSON.parse(lines[1] as string)).toMatchObject({ key: '[redacted]', apiKey: '[redacted]', n: 1 });
  });

  it('buffered stdout loses no line and splits none when the process exits', async () => {
    const run = runWithBufferedStdout(`
      const logger = createLogger('info', bufferedStdout());
      for (let i = 0; i < 5000; i++) logger.info({ i, pad: 'x'.repeat(i % 300) }, 'line');
      process.exit(0);
    `);
    const { code, stdout } = await run.exited;
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5000);
    expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual([...Array(5000).keys()]);
  });

  it('buffered stdout writes a quiet process’s lines within the flush period', async () => {
    const run = runWithBufferedStdout(`
      const logger = createLogger('info', bufferedStdout(100));
      logger.info('quiet');
      setTimeout(() => process.exit(0), 2000);
    `);
    const deadline = Date.now() + 1500;
    while (!run.seen().includes('"msg":"quiet"') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(run.seen()).toContain('"msg":"quiet"');
    await run.exited;
  });
});
