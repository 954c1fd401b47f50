import { describe, expect, it, onTestFinished } from 'vitest';
import { Faults, type FaultTarget, type SimulatorFault } from '../../src/simulator/faults.ts';
import { waitFor } from '../support/wait.ts';

describe('fault modes', () => {
  it('reverts a fault given a duration', async () => {
    const faults = new Faults();
    onTestFinished(() => faults.stop());
    faults.set('http-5xx', 'all', { durationMs: 50 });
    await waitFor(() => faults.state().binance === 'none', 2_000, 'the fault to lapse');
    expect(faults.state()).toEqual({ binance: 'none', nobitex: 'none', wallex: 'none', panel: 'none' });
  });

  it('refuses an unknown fault, target or duration and keeps the current faults', () => {
    const faults = new Faults();
    onTestFinished(() => faults.stop());
    faults.set('stall', 'nobitex');
    expect(() => faults.set('explode' as SimulatorFault)).toThrow(/unknown fault "explode"/);
    expect(() => faults.set('drop', 'kraken' as FaultTarget)).toThrow(/unknown target "kraken"/);
    expect(() => faults.set('drop', 'all', { durationMs: 0 })).toThrow(/positive integer/);
    expect(faults.state()).toEqual({ binance: 'none', nobitex: 'stall', wallex: 'none', panel: 'none' });
  });

  it('tells its listeners of every change, the revert included', async () => {
    const faults = new Faults();
    onTestFinished(() => faults.stop());
    const seen: string[] = [];
    faults.onChange((exchange, fault) => seen.push(`${exchange}:${fault}`));
    faults.set('drop', 'binance', { durationMs: 20 });
    await waitFor(() => faults.of('binance') === 'none', 2_000, 'the drop to lapse');
    expect(seen).toEqual(['binance:drop', 'binance:none']);
  });
});
