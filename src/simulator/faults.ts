/**
 * The fault each simulated exchange is in. Faults are switched at run time (through the
 * simulator's API, `simulate-exchange --fault` or `/_simulator/fault`), optionally for a limited
 * time; the parts that serve an exchange read its fault per request or frame, and those that hold
 * connections are told when it changes.
 */
import type { Logger } from '../logger.ts';

export const SIMULATOR_FAULTS = [
  'none',
  'drop',
  'stall',
  'malformed',
  'negative',
  'nan',
  'absurd',
  'times-ten',
  'tenth',
  'http-429',
  'http-5xx',
  'geo-block',
] as const;
export type SimulatorFault = (typeof SIMULATOR_FAULTS)[number];

/** The simulated exchanges, each with a fault of its own; `panel` is a made-up exchange's JSON document. */
const EXCHANGES = ['binance', 'nobitex', 'wallex', 'panel'] as const;
export type Exchange = (typeof EXCHANGES)[number];
export type FaultTarget = Exchange | 'all';
export const FAULT_TARGETS: readonly FaultTarget[] = [...EXCHANGES, 'all'];

export interface SetFaultOptions {
  /** Revert to 'none' after this long (a brief outage); default: until changed. */
  durationMs?: number;
}

/** The fault of each exchange, e.g. `{"binance":"none","nobitex":"stall"}`. */
export type FaultState = Record<Exchange, SimulatorFault>;

type FaultListener = (exchange: Exchange, fault: SimulatorFault) => void;

export function isFault(value: unknown): value is SimulatorFault {
  return typeof value === 'string' && (SIMULATOR_FAULTS as readonly string[]).includes(value);
}

export function isTarget(value: unknown): value is FaultTarget {
  return typeof value === 'string' && (FAULT_TARGETS as readonly string[]).includes(value);
}

export class Faults {
  private readonly current = Object.fromEntries(
    EXCHANGES.map((exchange) => [exchange, 'none']),
  ) as FaultState;
  private readonly timers = new Map<Exchange, NodeJS.Timeout>();
  private readonly listeners: FaultListener[] = [];

  /** Fault changes at info; silent when absent. */
  constructor(private readonly logger?: Logger) {}

  of(exchange: Exchange): SimulatorFault {
    return this.current[exchange];
  }

  /** Current fault of each exchange. */
  state(): FaultState {
    return { ...this.current };
  }

  /** Called after every change, in the order the listeners were added. */
  onChange(listener: FaultListener): void {
    this.listeners.push(listener);
  }

  set(fault: SimulatorFault, target: FaultTarget = 'all', options: SetFaultOptions = {}): void {
    if (!isFault(fault))
      throw new Error(`unknown fault "${String(fault)}" (one of ${SIMULATOR_FAULTS.join(', ')})`);
    if (!isTarget(target))
      throw new Error(`unknown target "${String(target)}" (one of ${FAULT_TARGETS.join(', ')})`);
    const { durationMs } = options;
    if (durationMs !== undefined && !(Number.isInteger(durationMs) && durationMs > 0)) {
      throw new Error('durationMs must be a positive integer');
    }
    const exchanges: readonly Exchange[] = target === 'all' ? EXCHANGES : [target];
    for (const exchange of exchanges) {
      clearTimeout(this.timers.get(exchange));
      this.timers.delete(exchange);
      this.current[exchange] = fault;
      if (durationMs !== undefined) {
        this.timers.set(
          exchange,
          setTimeout(() => {
            this.timers.delete(exchange);
            if (this.current[exchange] === fault) this.apply(exchange, 'none');
          }, durationMs),
        );
      }
      this.apply(exchange, fault);
    }
  }

  /** Cancels pending reverts. */
  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private apply(exchange: Exchange, fault: SimulatorFault): void {
    this.current[exchange] = fault;
    this.logger?.info({ side: exchange, fault }, 'simulator fault set');
    for (const listener of this.listeners) listener(exchange, fault);
  }
}
