import { describe, expect, it } from 'vitest';
import { balancerFaultsDrill, type Fault, faults } from '../../drills/balancer-faults.ts';
import { haproxyMissing } from '../../drills/support/haproxy.ts';
import { ownServersMissing } from '../../drills/support/own-servers.ts';
import { sayAs, testTeardown } from '../support/drill-test.ts';

/**
 * The faults of `npm run drill:balancer-faults`, short: two API instances behind HAProxy (the ops
 * file's backend), on a PostgreSQL and a Redis the drill starts for itself, a few seconds of load
 * around each fault. Needs Debian's `haproxy` (skipped, saying why, without it unless
 * NERKH_REQUIRE_HAPROXY=1, as in CI) and the PostgreSQL and Redis server binaries.
 */
const required = process.env.NERKH_REQUIRE_HAPROXY === '1';
const missing = haproxyMissing() ?? ownServersMissing();
if (missing !== null && !required) process.stdout.write(`Balancer drill tests skipped: ${missing}\n`);

const why: Record<Fault, string> = {
  'rolling-restart': 'every API instance stopped and started again, one at a time',
  'postgres-restart': 'PostgreSQL stopped for 3 s and started again',
  'redis-restart': 'Redis stopped for 3 s and started again',
  'kill-leader': 'kill -9 of the leading collector',
};

describe.skipIf(missing !== null && !required)('the balancer fault drills, short', () => {
  it.each(faults)('no known key fails through the balancer: %s', { timeout: 180_000 }, async (fault) => {
    if (missing !== null) throw new Error(`NERKH_REQUIRE_HAPROXY=1 but ${missing}`);
    const { results } = await balancerFaultsDrill(
      { fault, apis: 2, clients: 4, pauseMs: 5, steadySeconds: 2, outage: 3 },
      sayAs(`balancer ${fault}`),
      testTeardown,
    );
    const [result] = results;
    expect(result?.sent, why[fault]).toBeGreaterThan(0);
    expect({ fault, statuses: result?.statuses }).toEqual({ fault, statuses: { 200: result?.sent } });
  });
});
