import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const WEB_SOURCE = path.resolve('web/src');
const TIME_MODULE = path.join(WEB_SOURCE, 'time.ts');

/** Anything that writes a date or time by itself instead of through web/src/time.ts. */
const OWN_FORMATTING = /\btoLocale(?:Date|Time)?String\s*\(|\bIntl\s*\.\s*DateTimeFormat\b|\bdayjs\b|\bdate-fns\b|\.toUTCString\s*\(/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe('the web app’s dates and times', () => {
  it('are written by web/src/time.ts alone', () => {
    const files = sourceFiles(WEB_SOURCE);
    expect(files).toContain(TIME_MODULE);
    const offenders = files
      .filter((file) => file !== TIME_MODULE)
      .filter((file) => OWN_FORMATTING.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(WEB_SOURCE, file));
    expect(offenders).toEqual([]);
  });
});
