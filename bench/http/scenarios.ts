import type { BenchPart } from './parts.ts';

/** One request the bench sends both nerkh and nginx, by each one's path for the same bytes. */
export interface Scenario {
  name: string;
  nerkhPath: string;
  nginxPath: string;
  headers: Record<string, string>;
  /** If-None-Match with each server's own ETag (set once both run). */
  conditional?: boolean;
  expectStatus: number;
}

export const scenarios: Scenario[] = [
  { name: 'full list', nerkhPath: '/v1/rates', nginxPath: '/v1/rates', headers: {}, expectStatus: 200 },
  {
    name: 'full list, gzip',
    nerkhPath: '/v1/rates',
    nginxPath: '/v1/rates',
    headers: { 'Accept-Encoding': 'gzip' },
    expectStatus: 200,
  },
  {
    name: '?symbol=BTC',
    nerkhPath: '/v1/rates?symbol=BTC',
    nginxPath: '/v1/symbol/BTC',
    headers: {},
    expectStatus: 200,
  },
  {
    name: '304 (If-None-Match)',
    nerkhPath: '/v1/rates',
    nginxPath: '/v1/rates',
    headers: {},
    conditional: true,
    expectStatus: 304,
  },
];
export const fullList = scenarios[0] as Scenario;
export const notModifiedScenario = scenarios.find((scenario) => scenario.conditional) as Scenario;

/** The scenarios a run measures: the base part's four, or only the full list. */
export function measuredScenarios(parts: ReadonlySet<BenchPart>): Scenario[] {
  return parts.has('base') ? scenarios : [fullList];
}
