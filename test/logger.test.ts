import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createLogger, FixedShapeLines, jsonHundredths, jsonNumber, jsonString } from '../src/logger.ts';

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

/** A stream that keeps each write as one string: what a logger writing to it wrote, line by line. */
function capturedLines(): { lines: string[]; capture: Writable } {
  const lines: string[] = [];
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, capture };
}

describe('logger', () => {
  it('stamps each line with the ISO 8601 time of the moment it is written', () => {
    const { lines, capture } = capturedLines();
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

  it('property: the time of a line is exactly toISOString of its moment, whatever moments came before', () => {
    onTestFinished(() => {
      vi.useRealTimers();
    });
    vi.useFakeTimers({ toFake: ['Date'] });
    const { lines, capture } = capturedLines();
    const logger = createLogger('info', capture);
    const lastMsOfYear9999 = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    // Moments near one another (the same second, the next millisecond, a second boundary) as well
    // as far apart, forwards and backwards.
    const moment = fc.oneof(
      fc.integer({ min: 0, max: lastMsOfYear9999 }),
      fc.integer({ min: 1_764_115_199_990, max: 1_764_115_200_010 }),
    );
    fc.assert(
      fc.property(fc.array(moment, { minLength: 1, maxLength: 20 }), (moments) => {
        lines.length = 0;
        for (const ms of moments) {
          vi.setSystemTime(ms);
          logger.info('tick');
        }
        const times = lines.map((line) => (JSON.parse(line) as { time: string }).time);
        expect(times).toEqual(moments.map((ms) => new Date(ms).toISOString()));
      }),
      { numRuns: 500 },
    );
  });

  it('redacts key fields', () => {
    const { lines, capture } = capturedLines();
    const logger = createLogger('info', capture);
    logger.info(
      { key: 'nerkh_a', nested: { apiKey: 'nerkh_b' }, headers: { 'x-api-key': 'nerkh_c' } },
      'full',
    );
    expect(lines.join('')).not.toMatch(/nerkh_[a-c]/);
  });

  it('property: jsonString writes every string as JSON.stringify does', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' })),
        (value) => {
          expect(jsonString(value)).toBe(JSON.stringify(value));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('property: jsonHundredths writes a number rounded to hundredths as JSON.stringify does', () => {
    const durationMs = fc.double({ min: 0, max: 100_000, noNaN: true });
    fc.assert(
      fc.property(fc.oneof(durationMs, fc.double(), fc.integer({ min: 0, max: 1_000_000 })), (value) => {
        expect(jsonHundredths(value)).toBe(JSON.stringify(Math.round(value * 100) / 100));
      }),
      { numRuns: 20_000 },
    );
    for (const value of [
      0,
      -0,
      0.004,
      0.005,
      0.05,
      0.1,
      0.1 + 0.2,
      1.005,
      2.675,
      9.995,
      10,
      10737418.23,
      10737418.24,
    ])
      expect(jsonHundredths(value)).toBe(JSON.stringify(Math.round(value * 100) / 100));
  });

  it('writes a fixed-shape line byte for byte as pino writes the same fields, and none below its level', () => {
    const { lines, capture } = capturedLines();
    const logger = createLogger('info', capture).child({ role: 'api' });
    const fixed = new FixedShapeLines(logger, 'request');
    const awkward = 'a "quoted" \\ path\n\u0001 é ✓';
    const values = { id: 'req-1', url: awkward, status: 200, ms: 0.05, nan: Number.NaN };
    // Within one millisecond both lines carry the same time: retry until they do.
    for (let attempt = 0; attempt < 100; attempt++) {
      lines.length = 0;
      fixed.write(
        `,"req_id":${jsonString(values.id)},"url":${jsonString(values.url)},"status":${values.status},"duration_ms":${jsonNumber(values.ms)},"nan":${jsonNumber(values.nan)}`,
      );
      logger.info(
        {
          req_id: values.id,
          url: values.url,
          status: values.status,
          duration_ms: values.ms,
          nan: values.nan,
        },
        'request',
      );
      if (lines[0] === lines[1]) break;
    }
    expect(lines[0]).toBe(lines[1]);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      role: 'api',
      url: awkward,
      nan: null,
      msg: 'request',
    });

    logger.level = 'warn';
    fixed.write(',"status":200');
    expect(fixed.enabled).toBe(false);
    expect(lines).toHaveLength(2);
  });

  it('buffered stdout loses no line and splits none when the process exits', async () => {
    const run = runWithBufferedStdout(`
      const logger = createLogger('info', bufferedStdout());
      for (let i = 0; i < 5000; i++) {
        // Some lines of several-byte characters, and now and then one longer than a whole batch.
        const pad = i % 7 === 0 ? 'é✓'.repeat(i % 300) : 'x'.repeat(i % 1000 === 999 ? 40000 : i % 300);
        logger.info({ i, pad }, 'line');
      }
      process.exit(0);
    `);
    const { code, stdout } = await run.exited;
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5000);
    const parsed = lines.map((line) => JSON.parse(line) as { i: number; pad: string });
    expect(parsed.map(({ i }) => i)).toEqual([...Array(5000).keys()]);
    expect(parsed[7]?.pad).toBe('é✓'.repeat(7));
    expect(parsed[999]?.pad).toHaveLength(40000);
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
