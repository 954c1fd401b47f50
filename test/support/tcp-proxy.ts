import { type ChildProcess, fork } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * A TCP proxy in front of a server (Redis) that a test can make unreachable without touching the
 * server itself, which other tests and processes on the machine share:
 * - `stall()`: connections stay open and every byte waits, as when the server or the network
 *   hangs; `restore()` delivers them in order, as TCP would after the stall;
 * - `cut()`: every connection drops and new ones are closed at once, as when the server is down.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #pairs = new Set<{ client: Socket; upstream: Socket; held: Array<[Socket, Buffer]> }>();
  #mode: 'open' | 'stalled' | 'cut' = 'open';
  #tripwire: { marker: Buffer; tripped: () => void } | null = null;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server);
    server.on('connection', (client) => proxy.#accept(client, targetPort, targetHost));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy is not listening');
    return address.port;
  }

  stall(): void {
    this.#mode = 'stalled';
  }

  cut(): void {
    this.#mode = 'cut';
    for (const { client, upstream } of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  /**
   * Cuts every connection the moment a client sends bytes containing `marker` (a statement's
   * name, say): the first half of that chunk reaches the server, the rest never does, as when the
   * network fails in the middle of a message. Stays cut until `restore()`; resolves once cut.
   */
  cutOn(marker: string): Promise<void> {
    return new Promise((tripped) => {
      this.#tripwire = { marker: Buffer.from(marker), tripped };
    });
  }

  restore(): void {
    this.#mode = 'open';
    for (const pair of this.#pairs) {
      for (const [to, bytes] of pair.held) to.write(bytes);
      pair.held.length = 0;
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket, targetPort: number, targetHost: string): void {
    if (this.#mode === 'cut') {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    const pair = { client, upstream, held: [] as Array<[Socket, Buffer]> };
    this.#pairs.add(pair);
    const forward = (to: Socket) => (bytes: Buffer) => {
      const tripwire = this.#tripwire;
      if (tripwire !== null && to === upstream && bytes.includes(tripwire.marker)) {
        this.#tripwire = null;
        upstream.write(bytes.subarray(0, Math.ceil(bytes.length / 2)), () => {
          this.cut();
          tripwire.tripped();
        });
        return;
      }
      if (this.#mode === 'stalled') pair.held.push([to, bytes]);
      else if (this.#mode === 'open') to.write(bytes);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const drop = () => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    client.on('error', drop);
    upstream.on('error', drop);
  }
}

type ProxyCommand = 'stall' | 'cut' | 'restore' | 'close' | `cut-on:${string}`;

/**
 * A TcpProxy run in a child process, for tests whose own event loop is busy (a load generator):
 * bytes are relayed as soon as they arrive, not when the test next gets to them, so a relay never
 * looks like a slow server.
 */
export class TcpProxyProcess {
  readonly #child: ChildProcess;
  readonly port: number;

  private constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.port = port;
  }

  static async start(targetPort: number): Promise<TcpProxyProcess> {
    const child = fork(
      fileURLToPath(new URL('./tcp-proxy-child.ts', import.meta.url)),
      [String(targetPort)],
      {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message: { port: number }) => resolve(message.port));
      child.once('exit', (code) => reject(new Error(`the proxy process exited (${code})`)));
    });
    return new TcpProxyProcess(child, port);
  }

  stall(): Promise<void> {
    return this.#command('stall');
  }

  cut(): Promise<void> {
    return this.#command('cut');
  }

  restore(): Promise<void> {
    return this.#command('restore');
  }

  /** `TcpProxy.cutOn` in the proxy's process: resolves once the marker passed and all is cut. */
  cutOn(marker: string): Promise<void> {
    return this.#command(`cut-on:${marker}`);
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    await this.#command('close').catch(() => this.#child.kill('SIGKILL'));
    await exited;
  }

  #command(command: ProxyCommand): Promise<void> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: unknown) => {
        if (message !== command) return;
        this.#child.off('message', onMessage);
        resolve();
      };
      this.#child.on('message', onMessage);
      this.#child.send(command, (error) => {
        if (error) {
          this.#child.off('message', onMessage);
          reject(error);
        }
      });
    });
  }
}
