import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pages = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'bench/README.md',
  'chaos/README.md',
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

/** Every relative link of a page, as written: `[text](target)`, outside code. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

/** Why a link does not resolve, or undefined when it does. */
function brokenLink(page: string, target: string): string | undefined {
  const [file, anchor] = target.split('#') as [string, string | undefined];
  const resolved = file === '' ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), file);
  if (!resolved.startsWith(`${root}${path.sep}`) && resolved !== root) return 'points outside the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return 'an anchor on a file that is not markdown';
  return anchorsOf(resolved).has(anchor) ? undefined : `no heading #${anchor}`;
}

describe('documentation links', () => {
  it.each(pages)('every relative link of %s points to an existing file and heading', (page) => {
    const broken = linksOf(path.join(root, page)).flatMap((target) => {
      const reason = brokenLink(page, target);
      return reason ? [`${target}: ${reason}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('keeps the README under 200 lines', () => {
    const lines = readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThan(200);
  });

  it('finds a broken link and a missing heading', () => {
    expect(brokenLink('README.md', 'docs/nowhere.md')).toBe('no such file');
    expect(brokenLink('README.md', 'docs/operations.md#nowhere')).toBe('no heading #nowhere');
    expect(brokenLink('README.md', '../outside.md')).toBe('points outside the repository');
    expect(brokenLink('README.md', 'docs/operations.md#environment')).toBeUndefined();
  });
});
