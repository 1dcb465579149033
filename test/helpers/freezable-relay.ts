import net from 'node:net';

/**
 * A TCP relay between the app and PostgreSQL that can freeze: connections stay open and accepted, but no byte
 * moves either way, as with a server that is stopped (SIGSTOP), swapping or behind a black-holed network.
 */
export class FreezableRelay {
  private server: net.Server | undefined;
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private frozen = false;
  private readonly upstream: { host: string; port: number };
  port = 0;

  /** Relays to the server of this PostgreSQL URL. */
  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.upstream = { host: hostname, port: Number(port || 5432) };
  }

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      const server = net.connect(this.upstream.port, this.upstream.host);
      const pair: [net.Socket, net.Socket] = [client, server];
      this.pairs.add(pair);
      for (const socket of pair) {
        socket.on('close', () => this.pairs.delete(pair));
        socket.on('error', () => {
          client.destroy();
          server.destroy();
        });
      }
      client.pipe(server).pipe(client);
      if (this.frozen) this.hold(pair);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** This URL with its host and port pointing at the relay. */
  relayed(url: string): string {
    const relayed = new URL(url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(this.port);
    return relayed.toString();
  }

  freeze(): void {
    this.frozen = true;
    for (const pair of this.pairs) this.hold(pair);
  }

  thaw(): void {
    this.frozen = false;
    for (const [client, server] of this.pairs) {
      client.pipe(server);
      server.pipe(client);
      client.resume();
      server.resume();
    }
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) for (const socket of pair) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private hold([client, server]: [net.Socket, net.Socket]): void {
    client.unpipe(server);
    server.unpipe(client);
    client.pause();
    server.pause();
  }
}
