// The floor under any Node.js HTTP service: node:http answering every request with the same bytes
// (read once from a file), with no framework, routing, key check, limit or log. Whatever nerkh
// costs beyond this is nerkh's; what this costs beyond nginx is the platform's.
// Usage: node node-floor-server.mjs <port> <body-file>
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [port, bodyFile] = process.argv.slice(2);
const body = readFileSync(bodyFile);
const headers = {
  'content-type': 'application/json',
  'content-length': String(body.length),
  etag: '"floor"',
  'cache-control': 'private, max-age=600',
};
const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
