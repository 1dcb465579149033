import net from 'node:net';

/**
 * A TCP server that speaks just enough Redis to get a client through its connection handshake (HELLO,
 * CLIENT SETINFO, INFO) and then never answers anything again: a Redis that froze after the service connected
 * to it, or whose network path went silent. Nothing is refused and nothing is closed; replies just never come.
 */
export class FrozenRedis {
  private readonly server = net.createServer((socket) => this.accept(socket));
  private readonly sockets = new Set<net.Socket>();
  /** Connections that completed the handshake (the client then believes the server is ready). */
  handshakes = 0;
  /** Commands received after a handshake, none of which was answered. */
  unanswered = 0;

  get url(): string {
    return `redis://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    let pending = '';
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      const { commands, rest } = parseCommands(pending);
      pending = rest;
      for (const [name = ''] of commands) {
        const reply = HANDSHAKE_REPLIES[name.toLowerCase()];
        if (reply === undefined) {
          this.unanswered++;
          continue;
        }
        socket.write(reply);
        if (name.toLowerCase() === 'info') this.handshakes++;
      }
    });
  }
}

const INFO = 'loading:0\r\n';
const HANDSHAKE_REPLIES: Record<string, string> = {
  hello: '%1\r\n$5\r\nproto\r\n:3\r\n',
  client: '+OK\r\n',
  info: `$${INFO.length}\r\n${INFO}\r\n`,
};

/** Complete RESP commands (arrays of bulk strings) at the start of `input`, and what is left of it. */
function parseCommands(input: string): { commands: string[][]; rest: string } {
  const commands: string[][] = [];
  let position = 0;
  for (;;) {
    const command = parseCommand(input, position);
    if (!command) return { commands, rest: input.slice(position) };
    commands.push(command.args);
    position = command.end;
  }
}

function parseCommand(input: string, start: number): { args: string[]; end: number } | undefined {
  const header = readLine(input, start, '*');
  if (!header) return undefined;
  const args: string[] = [];
  let position = header.end;
  for (let i = 0; i < header.value; i++) {
    const length = readLine(input, position, '$');
    if (!length || length.end + length.value + 2 > input.length) return undefined;
    args.push(input.slice(length.end, length.end + length.value));
    position = length.end + length.value + 2;
  }
  return { args, end: position };
}

function readLine(input: string, start: number, prefix: string): { value: number; end: number } | undefined {
  if (input[start] !== prefix) return undefined;
  const lineEnd = input.indexOf('\r\n', start);
  if (lineEnd < 0) return undefined;
  return { value: Number(input.slice(start + 1, lineEnd)), end: lineEnd + 2 };
}
