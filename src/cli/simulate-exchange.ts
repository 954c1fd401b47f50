import { randomInt } from 'node:crypto';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { pino } from 'pino';
import { loadCatalog } from '../catalog/catalog-file.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { ExchangeSimulator } from '../simulator/exchange-simulator.ts';
import {
  FAULT_TARGETS,
  type FaultTarget,
  SIMULATOR_FAULTS,
  type SimulatorFault,
} from '../simulator/faults.ts';

interface SimulateOptions {
  port: number;
  host: string;
  seed?: number;
  fault: SimulatorFault;
  faultTarget: FaultTarget;
  catalog?: string;
  usdtRial?: number;
}

function integer(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    }
    return Number(value);
  };
}

/**
 * `nerkh simulate-exchange`: a local exchange speaking Binance's, Nobitex's and Wallex's wire
 * formats and a made-up exchange's JSON document, for the demo, development without internet
 * access, and failure drills.
 */
export function registerSimulateExchange(program: Command): void {
  program
    .command('simulate-exchange')
    .description('run a local Binance-, Nobitex- and Wallex-compatible exchange simulator on one port')
    .option('--port <n>', 'port to listen on (0: any free port)', integer(0, 65_535), 0)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option(
      '--seed <n>',
      'seed of the random walk, to replay a run (default: random, printed)',
      integer(0, 2 ** 32 - 1),
    )
    .addOption(
      new Option('--fault <mode>', 'start in a fault mode').choices(SIMULATOR_FAULTS).default('none'),
    )
    .addOption(
      new Option('--fault-target <exchange>', 'which exchange the fault applies to')
        .choices(FAULT_TARGETS)
        .default('all'),
    )
    .option(
      '--catalog <path>',
      'catalog of coins to price (default: NERKH_CATALOG, else the bundled catalog)',
    )
    .option(
      '--usdt-rial <n>',
      'Nobitex usdt-rls bestSell at start, in rial (default 1052990)',
      integer(1, 1e12),
    )
    .addHelpText(
      'after',
      `
Serves, on one port, the same coins on every exchange (toman = usdt × tether's toman ask,
rial = toman × 10):
  Binance WebSocket  /stream?streams=btcusdt@ticker/…  and  /ws/<stream>  (24hrTicker events,
                     SUBSCRIBE/UNSUBSCRIBE/LIST_SUBSCRIPTIONS, pings every 20 s, 24 h cap)
  Binance REST       GET /api/v3/ticker/24hr?symbols=["BTCUSDT",…]  or  ?symbol=BTCUSDT
  Nobitex            GET /market/stats?srcCurrency=usdt,btc,…&dstCurrency=rls|usdt
                     (btc-rls in rial, btc-usdt in tether, usdt-rls: tether in rial)
  Wallex             GET /v1/markets  (BTCTMN in toman, BTCUSDT in tether, USDTTMN)
  json-http panel    GET /panel/prices  a made-up exchange's document:
                     {"data":{"markets":[{"pair":"BTC-TMN","sell":"…","buy":"…","change24h":…,
                     "updated_at":"…"},…]}}, read with the mapping
                     {quotes: data.markets, key: pair, pair: {separator: "-", suffixes: {TMN: toman, USDT: usdt}}, ask: sell,
                      change: change24h, time: updated_at}
  Ramzinex           GET /exchange/api/v1.0/exchange/pairs/<pair_id>  (rial; USDT 11, BTC 2, ETH 7,
                     TRX 20, DOGE 61, TON 272)
  Bitpin             GET /api/v1/mth/orderbook/BTC_IRT/  (asks/bids, IRT in toman, USDT)
  Tabdeal            GET /r/api/v1/depth?symbol=BTCIRT&limit=1  (asks/bids, IRT in toman, USDT)
                     these three follow the panel fault
  Fault control      GET /_simulator/fault;  POST /_simulator/fault {"fault":"…","target":"…","durationMs":…}

Fault modes: ${SIMULATOR_FAULTS.join(', ')}.
  drop       close WebSocket connections abruptly (and new ones while set); reset HTTP connections
  stall      keep sockets open but send nothing, not even pings; hold HTTP requests unanswered
  malformed  cut-off JSON and events without the price
  negative, nan, absurd, times-ten, tenth
             corrupt the Binance ask (and bid, last), the Nobitex bestSell and the Iranian
             exchanges' asks: negative, "NaN", or a unit mistake (×1000, ×10, ÷10)
  http-429   HTTP endpoints and WebSocket upgrades answer 429 with Retry-After
  http-5xx   the same with 503
  geo-block  the same with 451 and the exchange's body (Binance's "Service unavailable from a
             restricted location …"); open Binance streams are closed
Targets: ${FAULT_TARGETS.join(', ')} (panel: the json-http document).

Prints the settings that point nerkh at it; logs go to stderr. Stops on SIGINT or SIGTERM.

Example:
  nerkh simulate-exchange --port 9443 --seed 7
  curl -X POST -d '{"fault":"geo-block","target":"binance"}' http://127.0.0.1:9443/_simulator/fault`,
    )
    .action(async (options: SimulateOptions) => {
      const config = loadConfig();
      const catalog = loadCatalog(options.catalog ?? config.NERKH_CATALOG);
      const logger = createLogger(config.LOG_LEVEL, pino.destination(2));
      const seed = options.seed ?? randomInt(2 ** 31);
      const simulator = await ExchangeSimulator.start({
        catalog,
        port: options.port,
        host: options.host,
        seed,
        logger,
        ...(options.usdtRial === undefined ? {} : { usdtRialStart: options.usdtRial }),
      });
      if (options.fault !== 'none') simulator.setFault(options.fault, options.faultTarget);
      const pairs = catalog.filter((entry) => entry.pair !== null).length;
      process.stdout.write(
        [
          `nerkh exchange simulator on ${simulator.restBaseUrl} (${pairs} pairs, seed ${seed})`,
          'Point nerkh at it:',
          `  export NERKH_BINANCE_WS_URL=${simulator.wsBaseUrl}`,
          `  export NERKH_BINANCE_REST_URL=${simulator.restBaseUrl}`,
          `  export NERKH_NOBITEX_URL=${simulator.nobitexBaseUrl}`,
          'Source URLs by kind, for a sources file:',
          `  binance    url: ${simulator.wsBaseUrl}  rest_url: ${simulator.restBaseUrl}`,
          `  nobitex    url: ${simulator.nobitexBaseUrl}`,
          `  wallex     url: ${simulator.wallexBaseUrl}`,
          `  json-http  url: ${simulator.panelUrl}`,
          `Faults now: ${JSON.stringify(simulator.faultState())}. Switch them while it runs:`,
          `  curl -X POST -d '{"fault":"drop","target":"binance"}' ${simulator.restBaseUrl}/_simulator/fault`,
          'Stop with Ctrl-C.',
          '',
        ].join('\n'),
      );
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      logger.info({ signal }, 'stopping exchange simulator');
      await simulator.stop();
      logger.info('exchange simulator stopped');
    });
}
