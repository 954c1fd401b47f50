import net from 'node:net';

/** Sends raw bytes and returns whatever the server answers before closing or going quiet. */
export function rawExchange(port: number, request: string | Buffer, quietMs = 1500): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer = setTimeout(() => socket.destroy(), quietMs);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      clearTimeout(timer);
      timer = setTimeout(() => socket.destroy(), 200);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(request);
  });
}

export function parseRawResponse(raw: string): {
  status: number;
  headers: Map<string, string>;
  body: string;
} {
  const headerEnd = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = raw.slice(0, headerEnd).split('\r\n');
  const headers = new Map(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(headerEnd + 4) };
}
