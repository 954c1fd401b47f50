import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../../src/project-root.ts';

/**
 * ops/prometheus/alerts.yaml: valid for Prometheus (`promtool check rules`), and its unit tests
 * (`promtool test rules`, ops/prometheus/alerts.test.yaml) pass, with every alert both firing
 * and resolving in them. promtool comes with Debian's `prometheus`; the promtool tests are
 * skipped, saying why, without it, unless NERKH_REQUIRE_PROMETHEUS=1 (CI).
 */
const run = promisify(execFile);
const promtool = '/usr/bin/promtool';
const required = process.env.NERKH_REQUIRE_PROMETHEUS === '1';
const missing = !existsSync(promtool);
if (missing && !required)
  process.stdout.write(`promtool tests skipped: ${promtool} is not installed (apt-get install prometheus)\n`);
const rulesDir = join(projectRoot, 'ops', 'prometheus');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface AlertRuleTest {
  eval_time: string;
  alertname: string;
  exp_alerts: unknown[];
}
const rules = (
  parse(readFileSync(join(rulesDir, 'alerts.yaml'), 'utf8')) as { groups: { rules: Rule[] }[] }
).groups.flatMap((group) => group.rules);
const tests = (
  parse(readFileSync(join(rulesDir, 'alerts.test.yaml'), 'utf8')) as {
    tests: { name: string; alert_rule_test: AlertRuleTest[] }[];
  }
).tests;

/** promtool's durations as used here: 90s, 20m, 1h. */
function seconds(duration: string): number {
  const match = /^(\d+)(s|m|h)$/.exec(duration);
  if (!match) throw new Error(`unexpected duration ${duration}`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[match[2] as 's' | 'm' | 'h'];
}

describe('the Prometheus alert rules (ops/prometheus/alerts.yaml)', () => {
  it('each alert has a severity, a summary and a description', () => {
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(['ticket', 'warning', 'critical'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.description, rule.alert).toBeTruthy();
    }
  });

  it('each alert fires in a unit test and resolves later in the same test', () => {
    const uncovered = rules
      .map((rule) => rule.alert)
      .filter(
        (alert) =>
          !tests.some((test) => {
            const checks = test.alert_rule_test.filter((check) => check.alertname === alert);
            const firing = checks
              .filter((check) => check.exp_alerts.length > 0)
              .map((check) => seconds(check.eval_time));
            const quiet = checks
              .filter((check) => check.exp_alerts.length === 0)
              .map((check) => seconds(check.eval_time));
            return firing.some((fired) => quiet.some((resolved) => resolved > fired));
          }),
      );
    expect(uncovered).toEqual([]);
  });

  it('waiting key requests open a ticket, not a page, after a day', () => {
    const rule = rules.find((candidate) => candidate.alert === 'NerkhKeyRequestsWaiting') as Rule;
    expect([rule.labels?.severity, rule.for]).toEqual(['ticket', '24h']);
  });

  it('no collector leading includes every collector gone: absent() beside max()', () => {
    const rule = rules.find((candidate) => candidate.alert === 'NerkhNoCollectorLeading');
    expect(rule?.expr).toContain('absent(nerkh_collector_leader)');
  });

  describe.skipIf(missing && !required)('with promtool', () => {
    it('promtool check rules accepts the file', async () => {
      if (missing) throw new Error(`NERKH_REQUIRE_PROMETHEUS=1 but ${promtool} is missing`);
      const { stdout } = await run(promtool, ['check', 'rules', 'alerts.yaml'], { cwd: rulesDir });
      process.stdout.write(`$ promtool check rules alerts.yaml\n${stdout}`);
      expect(stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    });

    // Its tests evaluate every rule once a simulated minute over up to 37 hours: about 6 s of CPU,
    // which a machine busy with other suites can stretch past the default 20 s.
    it('promtool test rules passes every unit test', { timeout: 120_000 }, async () => {
      if (missing) throw new Error(`NERKH_REQUIRE_PROMETHEUS=1 but ${promtool} is missing`);
      const result = await run(promtool, ['test', 'rules', 'alerts.test.yaml'], { cwd: rulesDir }).catch(
        (error: { stdout: string; stderr: string }) => {
          throw new Error(`promtool test rules failed:\n${error.stdout}${error.stderr}`);
        },
      );
      process.stdout.write(`$ promtool test rules alerts.test.yaml\n${result.stdout}`);
      expect(result.stdout).toContain('SUCCESS');
    });
  });
});
