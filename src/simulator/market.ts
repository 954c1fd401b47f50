/**
 * The simulated market behind the exchange simulator: a seeded random walk per Binance pair and
 * one for Nobitex's tether/rial book. Prices are kept as exact integers of 10⁻⁸ (Binance formats
 * every spot price and quantity with 8 decimals, e.g. "97123.45000000"), so what the simulator
 * sends is exactly what `askOf` reports — no float noise ever reaches the wire.
 */

/** 10⁸: Binance spot prices carry 8 decimals on the wire. */
const SCALE = 100_000_000n;
const DECIMALS = 8;

/** mulberry32: a small, fast, seedable PRNG — good enough for a simulator, deterministic for tests. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A standard normal draw (Box–Muller). */
function normal(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Formats 10⁻⁸ units as Binance does: always 8 decimals, `-` for negatives (e.g. price change `p`). */
export function formatUnits(units: bigint): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const fraction = (abs % SCALE).toString().padStart(DECIMALS, '0');
  return `${negative ? '-' : ''}${abs / SCALE}.${fraction}`;
}

/** Parses a non-negative decimal string with at most 8 decimals into 10⁻⁸ units; null if it is not one. */
export function parseUnits(text: string): bigint | null {
  const match = /^(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (!match?.[1]) return null;
  return BigInt(match[1]) * SCALE + BigInt((match[2] ?? '').padEnd(DECIMALS, '0'));
}

function unitsFromNumber(value: number): bigint {
  return BigInt(Math.round(value * 1e8));
}

function numberFromUnits(units: bigint): number {
  return Number(units) / 1e8;
}

/**
 * Realistic USDT starting prices of well-known coins (order of magnitude of early 2025), so the
 * demo shows plausible rates. Coins not listed get a deterministic price from their pair name.
 */
const STARTING_PRICES: Readonly<Record<string, number>> = {
  BTC: 97_250.12,
  ETH: 3_385.47,
  BNB: 652.3,
  SOL: 187.64,
  XRP: 2.3412,
  DOGE: 0.32418,
  ADA: 0.9516,
  TRX: 0.2487,
  AVAX: 38.21,
  LINK: 22.48,
  DOT: 7.012,
  TON: 5.482,
  SHIB: 0.00002193,
  PEPE: 0.00001824,
  FLOKI: 0.0001826,
  BONK: 0.00003127,
  LTC: 104.85,
  BCH: 448.6,
  UNI: 13.27,
  XLM: 0.4186,
  ATOM: 6.984,
  ETC: 27.31,
  FIL: 5.126,
  NEAR: 5.214,
  APT: 9.133,
  ARB: 0.7921,
  OP: 2.018,
  SUI: 4.2315,
  ICP: 10.42,
  HBAR: 0.3042,
  INJ: 23.18,
  AAVE: 331.4,
  MKR: 1_512,
  FET: 1.3125,
  RENDER: 7.183,
  GRT: 0.2041,
  ALGO: 0.4037,
  SAND: 0.5521,
  MANA: 0.5134,
  AXS: 6.48,
  EGLD: 35.17,
  THETA: 2.034,
  XTZ: 1.219,
  EOS: 0.8124,
  NEO: 14.36,
  IOTA: 0.3012,
  ZEC: 55.42,
  DASH: 34.88,
  XMR: 191.7,
  COMP: 80.13,
  CRV: 0.9142,
  SNX: 2.318,
  SUSHI: 1.2154,
  YFI: 8_512,
  BAT: 0.2487,
  ENJ: 0.2512,
  CHZ: 0.09214,
  GALA: 0.03512,
  APE: 1.3124,
  LDO: 2.014,
  WIF: 2.3184,
  TIA: 5.121,
  SEI: 0.4513,
  PAXG: 2_652.4,
  WBTC: 97_180.5,
  USDC: 1.0001,
  FDUSD: 0.9998,
  TUSD: 0.9996,
  TRUMP: 30.42,
  NOT: 0.006124,
  VET: 0.04512,
  IMX: 1.3124,
  STX: 1.6215,
  FLOW: 0.7512,
  QNT: 105.3,
  KAVA: 0.4812,
  ZIL: 0.02114,
  LRC: 0.1712,
  CAKE: 2.315,
  DYDX: 1.412,
  GMX: 25.31,
  BLUR: 0.2214,
  WLD: 2.118,
  JUP: 0.8512,
  PYTH: 0.3518,
  ORDI: 25.12,
  ENA: 0.9512,
  JTO: 3.114,
  STRK: 0.4218,
  ZRO: 5.214,
  ZK: 0.1612,
  TAO: 451.2,
  POL: 0.4512,
  LUNC: 0.00010124,
  LUNA: 0.3812,
  ANKR: 0.03214,
  CELO: 0.6512,
  ROSE: 0.08512,
  ONE: 0.02114,
  KSM: 30.12,
  RUNE: 4.512,
  AR: 16.21,
  MINA: 0.5512,
  WOO: 0.1912,
  GMT: 0.1412,
  MASK: 2.612,
  SKL: 0.04512,
  STORJ: 0.5012,
  CELR: 0.01612,
  ONT: 0.2212,
  QTUM: 3.214,
  RVN: 0.02012,
  ZRX: 0.4512,
  HOT: 0.002214,
  JASMY: 0.03214,
  LPT: 13.12,
  ENS: 33.21,
  OM: 3.812,
  PENDLE: 5.112,
  SSV: 25.12,
  ID: 0.3012,
  ARKM: 1.612,
  CFX: 0.1512,
  AXL: 0.7012,
  MEME: 0.01212,
  PEOPLE: 0.05012,
  ACH: 0.02812,
  RSR: 0.01212,
  TWT: 1.2012,
  XVS: 8.512,
  DYM: 1.912,
  MANTA: 0.8012,
  ETHFI: 2.012,
  IO: 2.412,
  BOME: 0.006212,
  PENGU: 0.03512,
  EIGEN: 3.612,
  HMSTR: 0.003612,
  DOGS: 0.0004812,
  CATI: 0.3512,
  NEIRO: 0.001112,
  TURBO: 0.007512,
  MOVE: 0.9512,
  BTTC: 0.00000095,
  WIN: 0.00009012,
  SLP: 0.003512,
  API3: 1.512,
  BAND: 1.312,
  COTI: 0.1012,
  MAGIC: 0.4512,
  SFP: 0.7512,
  YGG: 0.4512,
  SUN: 0.02012,
  JST: 0.03512,
  PNUT: 0.6512,
  KAIA: 0.2012,
  KNC: 0.5512,
  GLM: 0.4212,
  UMA: 2.712,
  XEC: 0.00003012,
  '1INCH': 0.4012,
};

/** Coins that trade all the time on Binance: their ticker streams push every second. */
const BUSY_COINS = new Set(['BTC', 'ETH', 'BNB', 'SOL', 'XRP', 'DOGE', 'PEPE', 'TRUMP']);
const STABLE_COINS = new Set(['USDC', 'FDUSD', 'TUSD', 'PAXG']);
/** Update cadences (ms) of quieter coins: a ticker event only goes out when something traded. */
const QUIET_INTERVALS = [2_000, 5_000, 10_000, 20_000, 30_000, 60_000];

/** FNV-1a over the pair name: the fallback price depends on the pair, not on the seed. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Deterministic plausible price for a coin missing from the table: 0.0001 … 999 USDT. */
function fallbackPrice(pair: string): number {
  const hash = hashText(pair);
  const exponent = (hash % 7) - 4; // 10⁻⁴ … 10²
  const mantissa = 1 + ((hash >>> 8) % 9000) / 1000; // 1.000 … 9.999
  return mantissa * 10 ** exponent;
}

/**
 * Decimals of the price tick for a price magnitude, close to Binance's tick sizes: BTCUSDT 0.01,
 * XRPUSDT 0.0001, DOGEUSDT 0.00001, SHIBUSDT 0.00000001 (about five significant digits).
 */
export function priceDecimals(price: number): number {
  return Math.min(8, Math.max(2, 4 - Math.floor(Math.log10(price))));
}

export interface PairMarket {
  readonly pair: string;
  /** Stream name: lower-case pair + `@ticker`. */
  readonly stream: string;
  /** One price tick in 10⁻⁸ units. */
  readonly tickUnits: bigint;
  /** Mean the walk reverts to, so a long demo does not drift off to absurd prices. */
  readonly anchor: number;
  readonly volatility: number;
  /** Milliseconds between ticker events of this pair when the simulator runs on its own. */
  readonly intervalMs: number;
  nextDueAt: number;
  ask: bigint;
  bid: bigint;
  last: bigint;
  open: bigint;
  prevClose: bigint;
  high: bigint;
  low: bigint;
  askQty: string;
  bidQty: string;
  lastQty: string;
  volume: number;
  firstTradeId: number;
  lastTradeId: number;
}

function quantity(random: () => number, price: number): string {
  // Roughly 10 … 5000 USDT of notional per order, with the 8-decimal Binance formatting.
  return ((10 + random() * 4990) / price).toFixed(DECIMALS);
}

function roundToTick(units: bigint, tick: bigint): bigint {
  const rounded = ((units + tick / 2n) / tick) * tick;
  return rounded > 0n ? rounded : tick;
}

/** Spread about two basis points, at least one tick, so the ask is always above the bid. */
function bidBelow(ask: bigint, tick: bigint): bigint {
  const spread = roundToTick(ask / 5000n, tick);
  const bid = ask - (spread > tick ? spread : tick);
  return bid > 0n ? bid : 0n;
}

export function createPairMarket(
  symbol: string,
  pair: string,
  random: () => number,
  now: number,
): PairMarket {
  const start = STARTING_PRICES[symbol] ?? fallbackPrice(pair);
  const tickUnits = 10n ** BigInt(DECIMALS - priceDecimals(start));
  const ask = roundToTick(unitsFromNumber(start), tickUnits);
  const open = roundToTick(unitsFromNumber(start * (1 + (random() - 0.5) * 0.08)), tickUnits);
  const busy = BUSY_COINS.has(symbol);
  const intervalMs = busy
    ? 1_000
    : (QUIET_INTERVALS[Math.floor(random() * QUIET_INTERVALS.length)] ?? QUIET_INTERVALS[0] ?? 2_000);
  const bid = bidBelow(ask, tickUnits);
  const firstTradeId = 1_000_000 + Math.floor(random() * 1_000_000_000);
  return {
    pair,
    stream: `${pair.toLowerCase()}@ticker`,
    tickUnits,
    anchor: start,
    volatility: STABLE_COINS.has(symbol) ? 0.00005 : 0.0008,
    intervalMs,
    nextDueAt: now + Math.floor(random() * intervalMs),
    ask,
    bid,
    last: random() < 0.5 ? ask : bid,
    open,
    prevClose: open > tickUnits ? open - tickUnits : open,
    high: ask > open ? ask : open,
    low: bid < open ? bid : open,
    askQty: quantity(random, start),
    bidQty: quantity(random, start),
    lastQty: quantity(random, start),
    volume: (5_000_000 + random() * 50_000_000) / start,
    firstTradeId,
    lastTradeId: firstTradeId + 50_000 + Math.floor(random() * 500_000),
  };
}

/** Records a trade and refreshes the book around `ask` (the caller has set it). */
function recordTrade(market: PairMarket, random: () => number): void {
  const price = numberFromUnits(market.ask);
  market.bid = bidBelow(market.ask, market.tickUnits);
  market.last = random() < 0.5 ? market.ask : market.bid;
  if (market.ask > market.high) market.high = market.ask;
  if (market.bid < market.low) market.low = market.bid;
  market.askQty = quantity(random, price);
  market.bidQty = quantity(random, price);
  market.lastQty = quantity(random, price);
  market.volume += Number(market.lastQty);
  market.lastTradeId += 1 + Math.floor(random() * 40);
}

/**
 * One step of the walk. About a third of the steps trade without moving the best ask (an
 * "unchanged tick": the event goes out, `as_of` must not move); the others move it by at least
 * one tick, reverting slowly towards the anchor.
 */
export function stepMarket(market: PairMarket, random: () => number): void {
  if (random() >= 0.35) {
    const price = numberFromUnits(market.ask);
    const drift = -0.02 * Math.log(price / market.anchor);
    let next = roundToTick(
      unitsFromNumber(price * Math.exp(drift + market.volatility * normal(random))),
      market.tickUnits,
    );
    if (next === market.ask) next = random() < 0.5 ? next + market.tickUnits : next - market.tickUnits;
    market.ask = next > market.tickUnits ? next : market.tickUnits * 2n;
  }
  recordTrade(market, random);
}

/** Sets the best ask to an exact wire value (tests drive the market this way). */
export function setMarketAsk(market: PairMarket, ask: bigint, random: () => number): void {
  market.ask = ask;
  recordTrade(market, random);
}

/** Binance's percent format: three decimals, e.g. "-1.234". */
export function changePercent(market: PairMarket): string {
  if (market.open === 0n) return '0.000';
  return ((Number(market.last - market.open) / Number(market.open)) * 100).toFixed(3);
}

export function weightedAverage(market: PairMarket): bigint {
  return roundToTick((market.open + market.last) / 2n, market.tickUnits);
}

export function quoteVolume(market: PairMarket): string {
  return (market.volume * numberFromUnits(weightedAverage(market))).toFixed(DECIMALS);
}

export function tradeCount(market: PairMarket): number {
  return market.lastTradeId - market.firstTradeId + 1;
}

/**
 * Nobitex's USDT/RLS book: rial prices are whole numbers in steps of 10 rial (1 toman); the
 * spread is a few hundred rial, like the live market.
 */
export interface TetherMarket {
  bestSell: number;
  bestBuy: number;
  latest: number;
  dayOpen: number;
  dayLow: number;
  dayHigh: number;
  volumeSrc: number;
  nextDueAt: number;
}

export const TETHER_INTERVAL_MS = 5_000;

function tetherSpread(bestSell: number): number {
  return Math.max(10, Math.round((bestSell * 0.0004) / 10) * 10);
}

export function createTetherMarket(startRial: number, random: () => number, now: number): TetherMarket {
  const bestSell = Math.round(startRial / 10) * 10;
  const dayOpen = Math.round((bestSell * (1 + (random() - 0.5) * 0.02)) / 10) * 10;
  return {
    bestSell,
    bestBuy: bestSell - tetherSpread(bestSell),
    latest: bestSell,
    dayOpen,
    dayLow: Math.min(dayOpen, bestSell),
    dayHigh: Math.max(dayOpen, bestSell),
    volumeSrc: 2_000_000 + random() * 8_000_000,
    nextDueAt: now + TETHER_INTERVAL_MS,
  };
}

export function setTetherBestSell(market: TetherMarket, bestSell: number, random: () => number): void {
  market.bestSell = bestSell;
  market.bestBuy = Math.max(0, bestSell - tetherSpread(bestSell));
  market.latest = random() < 0.5 ? market.bestSell : market.bestBuy;
  market.dayLow = Math.min(market.dayLow, market.bestBuy);
  market.dayHigh = Math.max(market.dayHigh, market.bestSell);
  market.volumeSrc += random() * 5_000;
}

export function stepTetherMarket(market: TetherMarket, random: () => number): void {
  const move = Math.round((normal(random) * market.bestSell * 0.0005) / 10) * 10;
  setTetherBestSell(market, Math.max(10_000, market.bestSell + move), random);
}
