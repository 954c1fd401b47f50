import { isUrlTemplate, mappingProblems } from '../feeds/json-http-mapping.ts';
import { type Problem, pointerTo } from './problem.ts';
import type { SourcesFile } from './sources-schema.ts';
import {
  currenciesOf,
  defaultPollSeconds,
  defaultStaleSeconds,
  routesOf,
  tetherSymbol,
} from './sources-setup.ts';

interface CheckContext {
  /** Symbols of the catalog in use: routes and `symbols` may name only these. */
  catalogSymbols: ReadonlySet<string>;
  /** Where the credentials the file names by variable are read from. */
  env: NodeJS.ProcessEnv;
}

const currencies = ['usdt', 'toman'] as const;

/**
 * How many markets (coin and currency) the collector asks of one source: tether's toman market, and
 * each catalog coin's markets its routes name, with the tether market of a coin it prices in toman
 * when it quotes tether too (the collector takes that coin's sell_usdt from the same source).
 */
function marketsOf(
  source: SourcesFile['sources'][number],
  setup: Parameters<typeof routesOf>[0],
  catalogSymbols: ReadonlySet<string>,
): number {
  const quotesUsdt = currenciesOf(source).includes('usdt');
  let count = routesOf(setup, tetherSymbol).toman.includes(source.name) ? 1 : 0;
  for (const symbol of catalogSymbols) {
    if (symbol === tetherSymbol) continue;
    const routes = routesOf(setup, symbol);
    const toman = routes.toman.includes(source.name);
    if (toman) count += 1;
    if (routes.usdt.includes(source.name) || (toman && quotesUsdt)) count += 1;
  }
  return count;
}

/**
 * The rules a file can break while having the right shape: each route names a declared source
 * that can quote that currency, tether has a toman route, every source serves some route, every
 * named credential is set, and the stale time is longer than each routed source's poll interval.
 * Every broken rule is reported, each where it is broken.
 */
export function checkSources(file: SourcesFile, { catalogSymbols, env }: CheckContext): Problem[] {
  const problems: Problem[] = [];
  const byName = new Map<string, { index: number; source: SourcesFile['sources'][number] }>();
  file.sources.forEach((source, index) => {
    const earlier = byName.get(source.name);
    if (earlier) {
      problems.push({
        pointer: pointerTo('sources', index, 'name'),
        message: `"${source.name}" already names the source at /sources/${earlier.index}; names must be unique`,
      });
    } else {
      byName.set(source.name, { index, source });
    }
    for (const [field, symbol] of [
      ...Object.keys(source.symbols ?? {}).map((symbol) => ['symbols', symbol] as const),
      ...Object.keys(source.coins_per_quote ?? {}).map((symbol) => ['coins_per_quote', symbol] as const),
    ]) {
      if (!catalogSymbols.has(symbol)) {
        problems.push({
          pointer: pointerTo('sources', index, field, symbol),
          atKey: true,
          message: `${symbol} is not in the catalog`,
        });
      }
    }
    const variables: Array<[string[], string]> = [];
    if (source.kind === 'wallex' && source.api_key_env) variables.push([['api_key_env'], source.api_key_env]);
    if (source.kind === 'json-http') {
      for (const [header, variable] of Object.entries(source.headers_env ?? {})) {
        variables.push([['headers_env', header], variable]);
      }
      for (const problem of mappingProblems(source.mapping, source.url)) {
        problems.push({ ...problem, pointer: pointerTo('sources', index, 'mapping') + problem.pointer });
      }
    }
    for (const [path, variable] of variables) {
      if (!env[variable]) {
        problems.push({
          pointer: pointerTo('sources', index, ...path),
          message: `environment variable ${variable} is not set (the file names it; its value is the secret)`,
        });
      }
    }
  });

  // Each route list: declared sources able to quote its currency.
  const checkList = (
    names: readonly string[] | undefined,
    currency: (typeof currencies)[number],
    at: string[],
  ) => {
    names?.forEach((name, position) => {
      const declared = byName.get(name);
      const pointer = pointerTo(...at, currency, position);
      if (!declared) {
        problems.push({
          pointer,
          message: `no source is named "${name}"; the sources are: ${[...byName.keys()].join(', ')}`,
        });
      } else if (!currenciesOf(declared.source).includes(currency)) {
        const can = currenciesOf(declared.source);
        problems.push({
          pointer,
          message: `"${name}" (${declared.source.kind}) cannot quote coins in ${currency}${can.length > 0 ? `, only in ${can.join(' and ')}` : ''}`,
        });
      }
    });
  };
  const routes = file.routes;
  for (const currency of currencies) checkList(routes.default[currency], currency, ['routes', 'default']);
  const coins = routes.coins ?? {};
  for (const [symbol, own] of Object.entries(coins)) {
    if (!catalogSymbols.has(symbol)) {
      problems.push({
        pointer: pointerTo('routes', 'coins', symbol),
        atKey: true,
        message: `${symbol} is not in the catalog`,
      });
    }
    for (const currency of currencies) checkList(own[currency], currency, ['routes', 'coins', symbol]);
    if (symbol === tetherSymbol && own.usdt !== undefined) {
      problems.push({
        pointer: pointerTo('routes', 'coins', symbol, 'usdt'),
        atKey: true,
        message:
          'tether is worth 1 tether by definition: give USDT a toman route only (its toman price is usdt_irt)',
      });
    }
  }

  const setup = {
    defaultRoutes: { usdt: routes.default.usdt ?? [], toman: routes.default.toman ?? [] },
    coinRoutes: new Map(Object.entries(coins)),
  };
  if (setup.defaultRoutes.usdt.length + setup.defaultRoutes.toman.length === 0) {
    problems.push({
      pointer: pointerTo('routes', 'default'),
      message: 'names no source: give usdt or toman (or both) at least one source',
    });
  }
  for (const symbol of Object.keys(coins)) {
    if (symbol === tetherSymbol) continue;
    const resolved = routesOf(setup, symbol);
    if (resolved.usdt.length + resolved.toman.length === 0) {
      problems.push({
        pointer: pointerTo('routes', 'coins', symbol),
        message: `leaves ${symbol} with no source: give usdt or toman (or both) at least one source`,
      });
    }
  }
  if (routesOf(setup, tetherSymbol).toman.length === 0) {
    const own = coins[tetherSymbol];
    problems.push({
      pointer: own?.toman ? pointerTo('routes', 'coins', tetherSymbol, 'toman') : pointerTo('routes'),
      message:
        'tether needs a toman route (routes.coins.USDT.toman, or routes.default.toman): its toman price is usdt_irt, which every toman price derived from tether needs',
    });
  }

  // Every source serves some route, and polls more often than a coin is called stale.
  const routed = new Set<string>();
  for (const list of [setup.defaultRoutes, ...setup.coinRoutes.values()]) {
    for (const currency of currencies) for (const name of list[currency] ?? []) routed.add(name);
  }
  const staleSeconds = file.failover?.stale_seconds ?? defaultStaleSeconds;
  for (const [name, { index, source }] of byName) {
    if (!routed.has(name)) {
      problems.push({
        pointer: pointerTo('sources', index),
        message: `"${name}" is in no route, so it would never be asked for a price; name it in routes or remove it`,
      });
      continue;
    }
    if (source.kind === 'binance') continue;
    let pollSeconds = source.poll_seconds ?? defaultPollSeconds;
    let round = '';
    if (source.kind === 'json-http' && isUrlTemplate(source.url)) {
      // One request per market, no closer together than the exchange's limit: a round takes longer.
      const perMinute = source.max_requests_per_minute ?? 60;
      const markets = marketsOf(source, setup, catalogSymbols);
      if ((markets * 60) / perMinute > pollSeconds) {
        pollSeconds = Math.ceil((markets * 60) / perMinute);
        round = ` of one URL per market: ${markets} markets at ${perMinute} a minute`;
      }
    }
    if (staleSeconds <= pollSeconds) {
      problems.push({
        pointer:
          file.failover?.stale_seconds === undefined
            ? pointerTo('sources', index)
            : pointerTo('failover', 'stale_seconds'),
        message: `a stale time of ${staleSeconds} s is not longer than ${name}'s poll interval (${pollSeconds} s${round}): its coins would look stale between two polls`,
      });
    }
  }
  return problems;
}
