import { spawn } from 'node:child_process';

/** A fenced shell block of a guide, its code as written (the fence's indentation removed). */
export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** Why the block is only shown, from a `<!-- norun: why -->` comment right above it; undefined when it runs. */
  norun?: string;
}

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell']);
const FENCE = /^(\s*)```([\w-]*)\s*$/;
const NORUN = /^\s*<!--\s*norun:\s*(.*?)\s*-->\s*$/;

/** Every ```sh (or bash, shell) block of a markdown text, in order. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent, language] = open as unknown as [string, string, string];
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    if (SHELL_LANGUAGES.has(language)) {
      const code = lines.slice(i + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
      const previous = lines.slice(0, i).reverse().find((line) => line.trim() !== '');
      const norun = previous === undefined ? undefined : NORUN.exec(previous)?.[1];
      blocks.push({ line: i + 1, code: code.join('\n'), ...(norun !== undefined ? { norun } : {}) });
    }
    i = end;
  }
  return blocks;
}

export interface GuideRun {
  exitCode: number | null;
  /** What each block that ran printed (stdout and stderr together), in order; the failing block's is last. */
  outputs: string[];
  /** The block that exited non-zero, when one did. */
  failed?: ShellBlock;
}

const MARKER = '@@guide-block-done@@';

/**
 * Runs the runnable blocks of a guide in order, exactly as written, in one bash process (so the variables a block
 * sets reach the next), stopping at the first command that fails or the first unset variable. `env` is all the
 * environment the guide gets besides PATH and HOME.
 */
export function runGuide(blocks: ShellBlock[], options: { cwd: string; env: Record<string, string>; timeoutMs: number }): Promise<GuideRun> {
  const runnable = blocks.filter((block) => block.norun === undefined);
  const script = ['set -euo pipefail', 'exec 2>&1', ...runnable.flatMap((block) => [block.code, `printf '\\n%s\\n' '${MARKER}'`])].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C.UTF-8', ...options.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', reject);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      const outputs = output.split(`\n${MARKER}\n`).map((text) => text.replace(/\n$/, ''));
      const done = outputs.length - 1;
      const failed = exitCode === 0 ? undefined : runnable[done];
      resolve({ exitCode, outputs: failed ? outputs : outputs.slice(0, done), ...(failed ? { failed } : {}) });
    });
  });
}
