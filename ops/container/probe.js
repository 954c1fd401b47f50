#!/usr/bin/env node
// `nerkh-probe URL`: the image's health check (docs/deployment.md#the-image), since the image
// carries no curl or wget. Exits 0 when URL answers 2xx within two seconds, 1 otherwise. Written
// to run as a script of either module kind (it is installed without an extension).
const url = process.argv[2];
if (url === undefined) {
  process.stderr.write('usage: nerkh-probe URL\n');
  process.exit(2);
}
fetch(url, { signal: AbortSignal.timeout(2000) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
