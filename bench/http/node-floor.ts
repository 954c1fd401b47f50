import { fileURLToPath } from 'node:url';
import type { StaticServer } from './nginx.ts';
import { startNodeServer } from './node-server.ts';

/** The Node.js reference servers: bare node:http, and raw TCP with no HTTP parsing. */
const referenceScripts = {
  'node:http': fileURLToPath(new URL('./node-floor-server.mjs', import.meta.url)),
  'raw TCP': fileURLToPath(new URL('./raw-tcp-server.mjs', import.meta.url)),
};

/** Starts a reference server sending `bodyFile` on `port`, optionally pinned. */
export function startNodeReference(
  kind: keyof typeof referenceScripts,
  options: { port: number; bodyFile: string; cpu?: number },
): Promise<StaticServer> {
  return startNodeServer(
    `${kind} reference server`,
    referenceScripts[kind],
    [String(options.port), options.bodyFile],
    options,
  );
}
