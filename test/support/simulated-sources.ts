import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/project-root.ts';
import type { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';

/** The exchanges' own addresses in the presets, and where the simulator serves each. */
const addresses = (sim: ExchangeSimulator): Array<[string, string]> => [
  ['wss://stream.binance.com:9443', sim.wsBaseUrl],
  ['https://api.binance.com', sim.restBaseUrl],
  ['https://apiv2.nobitex.ir', sim.nobitexBaseUrl],
  ['https://api.wallex.ir', sim.wallexBaseUrl],
  ['https://publicapi.ramzinex.com', sim.iranExchangesBaseUrl],
  ['https://api.bitpin.ir', sim.iranExchangesBaseUrl],
  ['https://api1.tabdeal.org', sim.iranExchangesBaseUrl],
  ['https://api.abantether.com', sim.iranExchangesBaseUrl],
];

/** A preset from `sources/` (or any sources text) with each exchange's address replaced by the simulator's. */
export function againstSimulator(sim: ExchangeSimulator, text: string): string {
  let result = text;
  for (const [real, simulated] of addresses(sim)) result = result.replaceAll(real, simulated);
  return result.replaceAll('{panel}', sim.panelUrl);
}

/** The text of `sources/<preset>.yaml` as shipped. */
export function presetText(preset: string): string {
  return readFileSync(join(projectRoot, 'sources', `${preset}.yaml`), 'utf8');
}

/** Writes `sources/<preset>.yaml`, pointed at the simulator, into `dir`; returns its path. */
export function presetFile(sim: ExchangeSimulator, preset: string, dir: string): string {
  const file = join(dir, `${preset}.yaml`);
  writeFileSync(file, againstSimulator(sim, presetText(preset)));
  return file;
}
