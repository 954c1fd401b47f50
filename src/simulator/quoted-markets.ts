/**
 * The coin markets as the simulated Iranian exchanges quote them, in tether, toman or rial: all
 * derived from the same usdt walk Binance streams and from tether's rial book on Nobitex, so all
 * exchanges agree and a test can predict each published value:
 *   usdt = the Binance ask, bid, last… with the decimals of the pair's tick size;
 *   toman ask = usdt ask × tether's toman ask (Nobitex usdt-rls bestSell ÷ 10), rounded to about
 *   five significant digits (a whole toman for most coins, decimals for coins worth a few toman);
 *   rial = toman × 10, exactly.
 * Amounts are exact integers of 10⁻⁸ (as in `market.ts`), so what goes on the wire is exact.
 */
import { changePercent, type PairMarket, type TetherMarket } from './market.ts';

const DECIMALS = 8;
const SCALE = 10n ** BigInt(DECIMALS);

/** A price in 10⁻⁸ units and the decimals it is quoted with (it is a multiple of 10^(8 − decimals)). */
export interface Price {
  units: bigint;
  decimals: number;
}

/** A market's best ask and best bid in toman. */
interface TomanBook {
  ask: Price;
  bid: Price;
}

/** `units` with exactly `decimals` decimals and no exponent, e.g. (12_345_000_000n, 2) → "123.45". */
export function formatPrice({ units, decimals }: Price): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = (abs / SCALE).toString();
  const fraction = (abs % SCALE).toString().padStart(DECIMALS, '0').slice(0, decimals);
  return `${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`;
}

/** The same amount in rial: ×10, one decimal fewer. */
function rialPrice({ units, decimals }: Price): Price {
  return { units: units * 10n, decimals: Math.max(0, decimals - 1) };
}

/** Rounds a/b to the nearest integer, halves up (a, b > 0). */
function divideRounded(a: bigint, b: bigint): bigint {
  return (a * 2n + b) / (2n * b);
}

/** Whole rial in toman: ÷ 10, with the one decimal it may need. */
function tomanOfRial(rial: number): Price {
  return { units: (BigInt(rial) * SCALE) / 10n, decimals: rial % 10 === 0 ? 0 : 1 };
}

/**
 * How a coin's usdt amounts read in toman: × tether's toman ask, rounded to about five
 * significant digits of the coin's toman price (a whole toman for most coins).
 */
function tomanOf(market: PairMarket, tether: TetherMarket): (usdtUnits: bigint) => Price {
  const rial = BigInt(tether.bestSell);
  const approximate = (Number(market.ask) / 1e8) * (tether.bestSell / 10);
  const decimals = Math.min(DECIMALS, Math.max(0, 4 - Math.floor(Math.log10(approximate))));
  const step = 10n ** BigInt(DECIMALS - decimals);
  // usdt units × rial per usdt = 10⁻⁸ rial; one toman step is 10 × step of those.
  return (usdtUnits) => ({ units: divideRounded(usdtUnits * rial, step * 10n) * step, decimals });
}

/** How a coin's usdt amounts read in tether: as they are, with the decimals of its tick size. */
function usdtOf(market: PairMarket): (usdtUnits: bigint) => Price {
  const decimals = DECIMALS - (market.tickUnits.toString().length - 1);
  return (units) => ({ units, decimals });
}

/** A coin's toman book; the bid stays below the ask even where rounding would make them meet. */
function coinToman(market: PairMarket, tether: TetherMarket): TomanBook {
  const toman = tomanOf(market, tether);
  const ask = toman(market.ask);
  const bid = toman(market.bid);
  const step = 10n ** BigInt(DECIMALS - ask.decimals);
  if (bid.units >= ask.units) bid.units = ask.units - step > 0n ? ask.units - step : 0n;
  return { ask, bid };
}

/** A coin of the simulated catalog with its market. */
export interface ListedCoin {
  /** Catalog symbol, e.g. BTC. */
  symbol: string;
  /** Its Persian name, e.g. بیت‌کوین (Wallex's `faBaseAsset`). */
  nameFa: string;
  /** Its usdt market, the one Binance streams. */
  market: PairMarket;
}

/** One coin market in one currency, as an exchange's wire format needs it. */
export interface QuotedMarket {
  /** Catalog symbol, e.g. BTC. */
  symbol: string;
  ask: Price;
  bid: Price;
  last: Price;
  open: Price;
  high: Price;
  low: Price;
  /** 24 h volume in the coin. */
  volume: number;
  /** 24 h change in percent, e.g. -3.04. */
  changePct: number;
}

type QuoteCurrency = 'usdt' | 'toman' | 'rial';

/** `market` quoted in `currency`; its bid stays below its ask. */
export function quoteIn(
  symbol: string,
  market: PairMarket,
  currency: QuoteCurrency,
  tether: TetherMarket,
): QuotedMarket {
  const toman = currency === 'usdt' ? null : coinToman(market, tether);
  const convert = currency === 'usdt' ? usdtOf(market) : tomanOf(market, tether);
  const inCurrency = (price: Price) => (currency === 'rial' ? rialPrice(price) : price);
  return {
    symbol,
    ask: inCurrency(toman?.ask ?? convert(market.ask)),
    bid: inCurrency(toman?.bid ?? convert(market.bid)),
    last: inCurrency(convert(market.last)),
    open: inCurrency(convert(market.open)),
    high: inCurrency(convert(market.high)),
    low: inCurrency(convert(market.low)),
    volume: market.volume,
    changePct: Number(changePercent(market)),
  };
}

/** Tether's own market in toman (`USDTTMN`): Nobitex's usdt-rls book ÷ 10. */
export function tetherInToman(tether: TetherMarket): QuotedMarket {
  return {
    symbol: 'USDT',
    ask: tomanOfRial(tether.bestSell),
    bid: tomanOfRial(tether.bestBuy),
    last: tomanOfRial(tether.latest),
    open: tomanOfRial(tether.dayOpen),
    high: tomanOfRial(tether.dayHigh),
    low: tomanOfRial(tether.dayLow),
    volume: tether.volumeSrc,
    changePct: ((tether.latest - tether.dayOpen) / tether.dayOpen) * 100,
  };
}
