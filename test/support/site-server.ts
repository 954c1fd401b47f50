import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appStoresOf, wireApi } from '../../src/api-wiring.ts';
import { loadConfig } from '../../src/config.ts';
import type { SnapshotDraft } from '../../src/domain/rates.ts';
import { memoryLimiters } from '../../src/limiter/open-limiter.ts';
import { createLogger } from '../../src/logger.ts';
import { openStore } from '../../src/store/open-store.ts';

/**
 * What the browser tests share: Debian's Chromium, the flags the guide gives for it on these
 * machines (without the background-networking ones its connections to the closed network fail),
 * and a real nerkh on a loopback port with an embedded store holding the snapshots a test asks for.
 */
export const chromiumPath = process.env.CHROME_PATH ?? '/usr/bin/chromium';
export const chromiumRequired = process.env.NERKH_REQUIRE_CHROMIUM === '1';
export const chromiumAvailable = existsSync(chromiumPath);
export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

/** Says why a browser suite does not run, when Chromium is missing and CI did not require it. */
export function announceChromiumSkip(suite: string): void {
  if (!chromiumAvailable && !chromiumRequired) {
    process.stdout.write(`${suite} skipped: ${chromiumPath} is missing (apt-get install chromium)\n`);
  }
}

export interface SiteServer {
  /** `http://127.0.0.1:<port>`, also the app's NERKH_PUBLIC_URL. */
  origin: string;
  /** A folder of the test's own, removed on close. */
  dataDir: string;
  close(): Promise<void>;
}

/**
 * Listens first (port 0), then builds the app for that origin: links and the form's action are
 * absolute URLs under NERKH_PUBLIC_URL, so it must be the address the browser uses. `snapshots`
 * are committed in order before the first request.
 */
export async function startSiteServer(
  name: string,
  snapshots: (origin: string) => Iterable<SnapshotDraft>,
): Promise<SiteServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `nerkh-${name}-`));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ NERKH_PUBLIC_URL: origin, NERKH_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const store = await openStore(config);
  const limiters = memoryLimiters(config);
  for (const draft of snapshots(origin)) await store.snapshots.commitSnapshot(draft);
  const app = await wireApi({ config, logger: createLogger('silent'), ...appStoresOf(store), limiters });
  await app.ready();
  server.on('request', (request, response) => app.routing(request, response));
  return {
    origin,
    dataDir,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      await limiters.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
