/**
 * A server that answers every request at once and does nothing else. bench/run.ts measures it at one connection:
 * its slow answers are the machine's own stalls (other processes, the hypervisor), which every one-connection
 * p99 of the service includes too.
 */
import { createServer } from 'node:http';

if (!process.send) throw new Error('bench/servers/floor-server.ts is started by bench/run.ts');

const server = createServer((_request, response) => response.end('ok'));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});

process.on('message', (message) => {
  if (message === 'cpu') return void process.send?.({ cpu: process.cpuUsage() });
  if (message === 'stop') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
