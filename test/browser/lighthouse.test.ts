import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuUsage } from '../support/cpu-usage.ts';
import {
  announceChromiumSkip,
  chromiumAvailable,
  chromiumFlags,
  chromiumPath,
  chromiumRequired,
  type SiteServer,
  startSiteServer,
} from '../support/site-server.ts';
import { sleep, waitFor } from '../support/wait.ts';
import { wholeCatalogDay } from '../support/whole-catalog.ts';

/**
 * Lighthouse, as a visitor's browser would run it: the `lighthouse` package driving Debian's
 * Chromium (headless, the guide's flags) against a real server with the whole catalog and a day of
 * history, on the overview, the coins list and a coin page in both languages, with the mobile
 * (Lighthouse's default) and the desktop profile. Accessibility, best practices and SEO must score
 * 100, performance at least 95. One Chromium serves all twelve audits, one after another. Every
 * report is saved to test-artifacts/lighthouse/ (JSON and HTML), with a table of the scores
 * (docs/architecture.md#the-website).
 */
announceChromiumSkip('lighthouse audit');

const artifacts = join(import.meta.dirname, '../../test-artifacts/lighthouse');
const audited = ['/', '/coins', '/coins/BTC', '/fa', '/fa/coins', '/fa/coins/BTC'];
const profiles = ['mobile', 'desktop'] as const;
const categories = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
/** The benchmark index of the host Lighthouse's default 4x CPU slowdown is set for. */
const referenceHostIndex = 1533;
const lowest: Record<(typeof categories)[number], number> = {
  performance: 95,
  accessibility: 100,
  'best-practices': 100,
  seo: 100,
};

interface Audit {
  path: string;
  profile: (typeof profiles)[number];
  scores: Record<(typeof categories)[number], number>;
  /**
   * Performance of every run made (one, or up to five while below the bar), with its CPU slowdown
   * and the CPU time other programs took during it.
   */
  runs: string[];
  /** The audits that cost points, for the failure message. */
  failing: string[];
}

/** Starts Chromium with a DevTools port for Lighthouse to drive; the port is read from the profile folder. */
async function startChromium(profileDir: string): Promise<{ port: number; chromium: ChildProcess }> {
  const chromium = spawn(
    chromiumPath,
    [...chromiumFlags, '--remote-debugging-port=0', `--user-data-dir=${profileDir}`, 'about:blank'],
    { stdio: 'ignore' },
  );
  const portFile = join(profileDir, 'DevToolsActivePort');
  await waitFor(
    () => existsSync(portFile) && readFileSync(portFile, 'utf8').includes('\n'),
    30_000,
    'Chromium to open its DevTools port',
  );
  const port = Number(readFileSync(portFile, 'utf8').split('\n')[0]);
  return { port, chromium };
}

describe.skipIf(!chromiumAvailable && !chromiumRequired)('Lighthouse', () => {
  let site: SiteServer;
  let origin: string;
  let chromium: ChildProcess | undefined;
  let port: number;
  const results: Audit[] = [];
  // This process (Lighthouse and the site's server) and Chromium's are the measurement; any other
  // program's CPU time during a run is the machine's, and shows as the page's main-thread time.
  const cpu = new CpuUsage(() => [process.pid, chromium?.pid ?? process.pid]);

  beforeAll(async () => {
    if (!chromiumAvailable) throw new Error(`NERKH_REQUIRE_CHROMIUM=1 but ${chromiumPath} is missing`);
    site = await startSiteServer('lighthouse', (at) => wholeCatalogDay(at, Date.now() - 60_000));
    origin = site.origin;
    ({ port, chromium } = await startChromium(join(site.dataDir, 'chromium')));
    mkdirSync(artifacts, { recursive: true });
    // A first run, not counted, measures the host for the mobile profile's calibration.
    await runLighthouse('/', 'desktop');
  }, 300_000);

  afterAll(async () => {
    if (results.length > 0) {
      const table = scoreTable(results);
      writeFileSync(join(artifacts, 'scores.md'), table);
      process.stdout.write(`Lighthouse scores (reports in test-artifacts/lighthouse/):\n${table}`);
    }
    chromium?.kill();
    await site?.close();
  });

  /**
   * The mobile profile's CPU slowdown, calibrated to the host as Lighthouse's throttling docs ask
   * (docs/architecture.md#the-website): its 4x assumes a host whose benchmark index is about 1533,
   * and a slower host (a shared CI machine) gets proportionally less, so the emulated phone stays
   * the same phone. The index is the one Lighthouse measured in its previous run.
   */
  let hostIndex = referenceHostIndex;
  const mobileSlowdown = () => Math.min(4, Math.max(1, (4 * hostIndex) / referenceHostIndex));

  /**
   * Waits for a second in which other programs take less than a tenth of a core: a test that ended
   * just before may leave a server or a container to finish stopping. The waits of the whole file
   * share three minutes, so a machine that is never quiet delays the audit only that long (the
   * runs then name what kept it busy).
   */
  let quietWaitLeftMs = 180_000;
  async function quietMachine(): Promise<void> {
    while (quietWaitLeftMs > 0) {
      cpu.restart();
      await sleep(1_000);
      quietWaitLeftMs -= cpu.elapsedMs();
      if (cpu.others().ms < 0.1 * cpu.elapsedMs()) return;
    }
  }

  /** One Lighthouse run; a run that fails to load the page (a runtime error) is tried again, up to three times. */
  async function runLighthouse(path: string, profile: Audit['profile']) {
    for (let attempt = 1; ; attempt++) {
      const slowdown = profile === 'mobile' ? mobileSlowdown() : undefined;
      await quietMachine();
      cpu.restart();
      const runner = await lighthouse(
        `${origin}${path}`,
        {
          port,
          output: ['json', 'html'],
          logLevel: 'error',
          onlyCategories: [...categories],
          ...(slowdown === undefined ? {} : { throttling: { cpuSlowdownMultiplier: slowdown } }),
        },
        profile === 'desktop' ? desktopConfig : undefined,
      );
      const measured = runner?.lhr.environment.benchmarkIndex;
      if (measured !== undefined && Number.isFinite(measured)) hostIndex = measured;
      const others = cpu.others();
      if (runner !== undefined && runner.lhr.runtimeError === undefined)
        return { ...runner, slowdown, others };
      if (attempt === 3)
        throw new Error(`lighthouse failed on ${path}: ${runner?.lhr.runtimeError?.message}`);
    }
  }

  describe.each(profiles)('%s profile', (profile) => {
    it.each(audited)(
      `%s scores 100 for accessibility, best practices and SEO, ${lowest.performance}+ for performance`,
      async (path) => {
        // Performance is timed on a shared machine, whose other work can only add main-thread
        // time to a run, never take it away: each run waits for a quiet machine, a run below the
        // bar is repeated, up to five in all, and the best counts, the nearest measure of the
        // page's own cost (docs/architecture.md#the-website). Each run names the other programs
        // that took CPU time during it. The other categories do not depend on timing.
        const runs = [await runLighthouse(path, profile)];
        const performanceOf = (run: (typeof runs)[number]) =>
          Math.round((run.lhr.categories.performance?.score ?? 0) * 100);
        const bestOf = () =>
          runs.reduce((best, run) => (performanceOf(run) > performanceOf(best) ? run : best));
        while (performanceOf(bestOf()) < lowest.performance && runs.length < 5) {
          runs.push(await runLighthouse(path, profile));
        }
        const { lhr, report } = bestOf();
        const name = `${path === '/' ? 'home' : path.slice(1).replaceAll('/', '-')}-${profile}`;
        const [json, html] = Array.isArray(report) ? report : [report, ''];
        writeFileSync(join(artifacts, `${name}.json`), json ?? '');
        writeFileSync(join(artifacts, `${name}.html`), html ?? '');
        const scores = Object.fromEntries(
          categories.map((category) => [category, Math.round((lhr.categories[category]?.score ?? 0) * 100)]),
        ) as Audit['scores'];
        const failing = Object.values(lhr.audits)
          .filter((audit) => audit.score !== null && audit.score < 1)
          .filter((audit) => !['informative', 'manual', 'notApplicable'].includes(audit.scoreDisplayMode))
          .map(
            (audit) => `${audit.id} (${audit.score})${audit.displayValue ? `: ${audit.displayValue}` : ''}`,
          );
        results.push({
          path,
          profile,
          scores,
          runs: runs.map((run) => {
            const slowdown = run.slowdown === undefined ? [] : [`CPU ${run.slowdown.toFixed(1)}x`];
            const others = [`others ${Math.round(run.others.ms)} ms`, ...run.others.busiest];
            return `${performanceOf(run)} (${[...slowdown, ...others].join('; ')})`;
          }),
          failing,
        });
        const below = categories.filter((category) => scores[category] < lowest[category]);
        expect(
          below.map((category) => `${category} ${scores[category]}`),
          [...failing, `runs: ${results.at(-1)?.runs.join(', ')}`].join('\n'),
        ).toEqual([]);
      },
      300_000,
    );
  });
});

function scoreTable(results: readonly Audit[]): string {
  const lines = [
    `| Page | Profile | ${categories.join(' | ')} | performance runs |`,
    `|---|---|${categories.map(() => '---:').join('|')}|---|`,
    ...results.map(
      (result) =>
        `| ${result.path} | ${result.profile} | ${categories.map((category) => result.scores[category]).join(' | ')} | ${result.runs.join(', ')} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
