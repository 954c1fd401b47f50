import { TcpProxy } from './tcp-proxy.ts';

/**
 * A TcpProxy in a process of its own (see `TcpProxyProcess`): run as
 * `node --import tsx tcp-proxy-child.ts <target port>`, it reports its port over IPC, then obeys
 * `stall`, `cut`, `restore`, `cut-on:<marker>` and `close` messages, answering each once done.
 */
const proxy = await TcpProxy.start(Number(process.argv[2]));
process.on('message', async (command: 'stall' | 'cut' | 'restore' | 'close' | `cut-on:${string}`) => {
  if (command === 'close') {
    await proxy.close();
    process.send?.('close', () => process.exit(0));
    return;
  }
  if (command === 'stall' || command === 'cut' || command === 'restore') {
    proxy[command]();
    process.send?.(command);
    return;
  }
  await proxy.cutOn(command.slice('cut-on:'.length));
  process.send?.(command);
});
process.send?.({ port: proxy.port });
