// The ceiling of Node.js itself: a raw TCP server that answers each request, counted by the blank
// line that ends its head, with the same prebuilt response bytes. It parses no HTTP at all (so
// it is only fit for a benchmark: any method, path or body gets the same answer); what it sends
// per second, compared with the node:http floor, is what Node's HTTP server costs.
// Usage: node raw-tcp-server.mjs <port> <body-file>
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const [port, bodyFile] = process.argv.slice(2);
const body = readFileSync(bodyFile);
const response = Buffer.concat([
  Buffer.from(
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\netag: "raw"\r\ncache-control: private, max-age=600\r\n\r\n`,
  ),
  body,
]);
const endOfHead = '\r\n\r\n';
const server = createServer((socket) => {
  let pending = '';
  socket.on('data', (chunk) => {
    pending += chunk.toString('latin1');
    let end = pending.indexOf(endOfHead);
    while (end !== -1) {
      socket.write(response);
      pending = pending.slice(end + endOfHead.length);
      end = pending.indexOf(endOfHead);
    }
  });
  socket.on('error', () => socket.destroy());
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  // Keep-alive connections from the load generator would hold close() open.
  setTimeout(() => process.exit(0), 500).unref();
});
