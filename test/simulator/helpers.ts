import { onTestFinished } from 'vitest';
import { ExchangeSimulator, type SimulatorOptions } from '../../src/simulator/exchange-simulator.ts';
import { smallCatalog, WireClient } from '../feeds/helpers.ts';

/** A simulator on the small catalog, driven by `tick` (no timers), stopped when the test ends. */
export async function startSimulator(options: Partial<SimulatorOptions> = {}): Promise<ExchangeSimulator> {
  const simulator = await ExchangeSimulator.start({
    catalog: smallCatalog(),
    seed: 7,
    autoTick: false,
    ...options,
  });
  onTestFinished(() => simulator.stop());
  return simulator;
}

/** A raw WebSocket client on `path` of the simulator's Binance stream, closed when the test ends. */
export async function connect(
  simulator: ExchangeSimulator,
  path: string,
  options: { autoPong?: boolean } = {},
): Promise<WireClient> {
  const client = await WireClient.open(`${simulator.wsBaseUrl}${path}`, options);
  onTestFinished(() => client.close());
  return client;
}
