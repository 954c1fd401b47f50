import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of Redis that the bench can take down as if Redis had died, without
 * touching the machine's Redis, which other programs share: `cut()` drops every connection and
 * stops listening (so reconnection attempts are refused, as by a host whose Redis is not running);
 * `restore()` listens again on the same port.
 */
export class CuttableProxy {
  readonly #targetHost: string;
  readonly #targetPort: number;
  readonly #port: number;
  readonly #sockets = new Set<Socket>();
  #server: Server | null = null;

  private constructor(targetHost: string, targetPort: number, port: number) {
    this.#targetHost = targetHost;
    this.#targetPort = targetPort;
    this.#port = port;
  }

  static async start(targetHost: string, targetPort: number, port: number): Promise<CuttableProxy> {
    const proxy = new CuttableProxy(targetHost, targetPort, port);
    await proxy.restore();
    return proxy;
  }

  get port(): number {
    return this.#port;
  }

  async restore(): Promise<void> {
    if (this.#server !== null) return;
    const server = createServer((client) => this.#accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
  }

  async cut(): Promise<void> {
    const server = this.#server;
    if (server === null) return;
    this.#server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    await closed;
  }

  #accept(client: Socket): void {
    const upstream = connect(this.#targetPort, this.#targetHost);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    this.#sockets.add(client);
    this.#sockets.add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.once('close', drop);
      socket.on('error', drop);
    }
  }
}
