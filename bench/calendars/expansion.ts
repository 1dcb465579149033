/**
 * `node bench/calendars/expansion.ts`: the CPU one expansion of a 5,000-event feed with 200 recurring series
 * costs over a 60-day window (what a calendar sync spends on expansion), median and worst of several runs after
 * a warm-up. In-process; no database.
 */
import { expandBusy } from '../../src/modules/calendars/busy-expansion.ts';
import { largeFeed } from './large-feed.ts';

const RUNS = 15;
const anchor = new Date('2026-11-26T00:00:00Z');
const window = { start: anchor, end: new Date(anchor.getTime() + 60 * 86_400_000) };
const feed = largeFeed(5_000, 200, anchor);

function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

let intervals = 0;
const first = cpuMs(() => (intervals = expandBusy(feed, window, 'Europe/Berlin').length));
const runs = Array.from({ length: RUNS }, () => cpuMs(() => expandBusy(feed, window, 'Europe/Berlin'))).sort((a, b) => a - b);
console.log(`feed: 5,000 events (200 recurring), ${(feed.length / 1024).toFixed(0)} KiB; window: 60 days; ${intervals} busy intervals`);
console.log(`first run (cold): ${first.toFixed(0)} ms CPU`);
console.log(`median of ${RUNS}: ${runs[Math.floor(RUNS / 2)]!.toFixed(0)} ms CPU, worst ${runs[RUNS - 1]!.toFixed(0)} ms CPU`);
