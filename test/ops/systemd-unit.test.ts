import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { projectRoot } from '../../src/project-root.ts';

/**
 * ops/systemd/nerkh.service, checked by systemd's own tools without a running systemd (this
 * machine and CI's containers have none as PID 1): `systemd-analyze verify` loads the unit as
 * systemd would, and `systemd-analyze security --offline` scores its sandbox. Both run against a
 * root directory holding the system's units, the unit, and the bin at /opt/nerkh (verify checks
 * that ExecStart's program exists). Skipped, saying why, without systemd-analyze (Debian's
 * `systemd`), unless NERKH_REQUIRE_SYSTEMD=1 (CI).
 */
const run = promisify(execFile);
const systemdAnalyze = '/usr/bin/systemd-analyze';
const required = process.env.NERKH_REQUIRE_SYSTEMD === '1';
const missing = !existsSync(systemdAnalyze);
if (missing && !required)
  process.stdout.write(
    `systemd unit tests skipped: ${systemdAnalyze} is not installed (apt-get install systemd)\n`,
  );
const unitText = readFileSync(join(projectRoot, 'ops', 'systemd', 'nerkh.service'), 'utf8');

/** The unit's `Key=value` settings, in order (a key may repeat). */
const settings = unitText
  .split('\n')
  .filter((line) => /^[A-Za-z]+=/.test(line))
  .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]);
const setting = (key: string) => settings.filter(([name]) => name === key).map(([, value]) => value);

/** A root directory as the unit would be installed in, with `text` as the unit. */
function installedRoot(text: string): { root: string; unit: string } {
  const root = mkdtempSync(join(tmpdir(), 'nerkh-systemd-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  cpSync('/usr/lib/systemd/system', join(root, 'usr/lib/systemd/system'), {
    recursive: true,
    verbatimSymlinks: true,
  });
  mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
  mkdirSync(join(root, 'opt/nerkh/bin'), { recursive: true });
  copyFileSync(join(projectRoot, 'bin', 'nerkh.js'), join(root, 'opt/nerkh/bin/nerkh.js'));
  chmodSync(join(root, 'opt/nerkh/bin/nerkh.js'), 0o755);
  const unit = join(root, 'etc/systemd/system/nerkh.service');
  writeFileSync(unit, text);
  return { root, unit };
}

async function verify(text: string): Promise<{ code: number; output: string }> {
  const { root, unit } = installedRoot(text);
  try {
    const { stdout, stderr } = await run(systemdAnalyze, ['verify', `--root=${root}`, unit]);
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: `${failed.stdout}${failed.stderr}` };
  }
}

describe('the systemd unit (ops/systemd/nerkh.service)', () => {
  it('runs nerkh under a dynamic user with the hardening settings, writing only its state directory', () => {
    for (const [key, value] of [
      ['DynamicUser', 'yes'],
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['CapabilityBoundingSet', ''],
      ['StateDirectory', 'nerkh'],
    ])
      expect(setting(key as string), key).toEqual([value]);
    expect(setting('Environment')).toContain('NERKH_DATA_DIR=%S/nerkh');
    expect(setting('ExecStart')).toEqual(['/opt/nerkh/bin/nerkh.js serve']);
    // nerkh exits within its drain (10 s by default) and 15 s of SIGTERM (docs/operations.md#shutdown):
    // systemd waits longer than that.
    expect(Number.parseInt(setting('TimeoutStopSec')[0] ?? '', 10)).toBeGreaterThan(10 + 15);
  });

  describe.skipIf(missing && !required)('with systemd-analyze', () => {
    it('systemd-analyze verify loads it without a word of complaint', async () => {
      if (missing) throw new Error(`NERKH_REQUIRE_SYSTEMD=1 but ${systemdAnalyze} is missing`);
      const result = await verify(unitText);
      process.stdout.write(
        `$ systemd-analyze verify --root=… nerkh.service → exit ${result.code}${result.output ? `\n${result.output}` : ', no output'}\n`,
      );
      expect(result).toEqual({ code: 0, output: '' });
    });

    it('and would complain of a misspelt setting and of a missing program', async () => {
      if (missing) throw new Error(`NERKH_REQUIRE_SYSTEMD=1 but ${systemdAnalyze} is missing`);
      const misspelt = await verify(unitText.replace(/^ProtectSystem=strict$/m, 'ProtectSytem=strict'));
      expect(misspelt.output).toContain("Unknown key 'ProtectSytem'");
      const noProgram = await verify(
        unitText.replace(/^ExecStart=\/opt\/nerkh\/bin\/nerkh.js/m, 'ExecStart=/opt/nerkh/bin/nerkh'),
      );
      expect(noProgram.code).not.toBe(0);
      expect(noProgram.output).toContain('/opt/nerkh/bin/nerkh is not executable');
    });

    it('systemd-analyze security rates its exposure low (under 2 of 10)', async () => {
      if (missing) throw new Error(`NERKH_REQUIRE_SYSTEMD=1 but ${systemdAnalyze} is missing`);
      const { root, unit } = installedRoot(unitText);
      const { stdout } = await run(systemdAnalyze, [
        'security',
        '--offline=true',
        `--root=${root}`,
        '--no-pager',
        unit,
      ]);
      const overall = /Overall exposure level for nerkh\.service: ([\d.]+) (\w+)/.exec(stdout);
      const exposed = stdout.split('\n').filter((line) => line.startsWith('✗'));
      process.stdout.write(
        `$ systemd-analyze security --offline=true nerkh.service\n${exposed.join('\n')}\n${overall?.[0]}\n`,
      );
      expect(Number(overall?.[1])).toBeLessThan(2);
    });
  });
});
