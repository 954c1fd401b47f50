import type { onRequestHookHandler } from 'fastify';
import type { NerkhApp } from '../types.ts';

interface BehindApiKeyOptions {
  /** The key check and per-key rate limit (./api-key-guard.ts). */
  requireApiKey: onRequestHookHandler;
  /** Adds the routes that answer only to a valid key; whatever it registers is behind the check. */
  routes(api: NerkhApp): PromiseLike<unknown>;
}

/**
 * The one encapsulated context of every keyed route: the key check is its `onRequest` hook, added
 * once here rather than on each route, so a route registered inside cannot ship without it. Hooks
 * of an encapsulated plugin do not reach its parent, so the public routes outside stay keyless.
 */
export async function behindApiKey(api: NerkhApp, options: BehindApiKeyOptions): Promise<void> {
  api.addHook('onRequest', options.requireApiKey);
  await options.routes(api);
}
