/**
 * Preloaded into the service (`NODE_OPTIONS=--import=…`): the process sends itself a SIGTERM from inside the write
 * of its start line, so the signal is pending before any reader of that line could send one. A service that
 * announces its start before it handles SIGTERM is then ended by Node's default at once, every time.
 */
const stdout = process.stdout;
const write = stdout.write.bind(stdout) as (...args: unknown[]) => boolean;
stdout.write = ((...args: unknown[]) => {
  const written = write(...args);
  if (String(args[0]).startsWith('Scheduling API listening')) process.kill(process.pid, 'SIGTERM');
  return written;
}) as typeof stdout.write;
