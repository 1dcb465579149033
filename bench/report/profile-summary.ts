/**
 * Where a V8 CPU profile (node --cpu-prof) spent its time: self time per function and per package.
 * Used by `npm run bench -- --profile`; also runnable on its own: `npx node bench/report/profile-summary.ts <file>`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package a script belongs to: an npm package, a folder of this project, Node's internals, or V8/GC. */
export function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return 'node (internals)';
  const src = url.indexOf('/src/');
  if (src >= 0) return `src/${url.slice(src + 5).split('/').slice(0, -1).join('/')}`;
  return url;
}

export function summarizeProfile(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    if (byId.get(id)?.callFrame.functionName === '(idle)') {
      idle += delta;
      return;
    }
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
    total += delta;
  });
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const where = frame.url ? `${frame.url.replace(/^file:\/\/.*?\/(node_modules|src)\//, '$1/')}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    const pkg = packageOf(frame.url, frame.functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
  }
  const format = (map: Map<string, number>, limit: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  return [
    `busy: ${(total / 1e6).toFixed(1)} s (idle ${(idle / 1e6).toFixed(1)} s, left out of the shares below)`,
    'self time by package:',
    format(byPackage, 20),
    `self time by function (top ${top}):`,
    format(byFunction, top),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: npx node bench/report/profile-summary.ts <file.cpuprofile>');
  process.stdout.write(`${summarizeProfile(file)}\n`);
}
