/**
 * Half-open intervals of epoch MINUTES, flattened into one array: [start0, end0, start1, end1, …]. The slot
 * engine works on these instead of objects of epoch milliseconds: small integers in a packed array, no
 * allocation per interval, and every operation below is one linear pass over sorted input.
 *
 * "Normalized" means sorted by start, every interval non-empty, overlapping or touching intervals merged.
 */
export type Intervals = number[];

export const MINUTE_MS = 60_000;

/** Normalizes any intervals (any order, may overlap or be empty); sorts only when the input is out of order. */
export function normalizeIntervals(flat: ArrayLike<number>): Intervals {
  return mergeSorted(flat, true);
}

/**
 * Like normalizeIntervals, but intervals that only touch stay apart, each with its own start: sorted, non-empty
 * and disjoint, not necessarily normalized.
 */
export function mergeOverlaps(flat: ArrayLike<number>): Intervals {
  return mergeSorted(flat, false);
}

function mergeSorted(flat: ArrayLike<number>, joinTouching: boolean): Intervals {
  const count = flat.length >> 1;
  const ordered = inStartOrder(flat, count);
  const out: Intervals = [];
  for (let i = 0; i < count; i++) appendMerged(out, ordered[2 * i]!, ordered[2 * i + 1]!, joinTouching);
  return out;
}

/**
 * The intervals ordered by start (stable). Busy time mostly arrives as a few runs already in order (an index
 * scan's stretches, a connected calendar's day after another's): those runs are merged pairwise, a pass for each
 * doubling (3 calendars × 31 days, 63 runs of 2,000 intervals: 40 µs against 57 for the sort). Past MAX_RUNS
 * runs, a sort.
 */
function inStartOrder(flat: ArrayLike<number>, count: number): ArrayLike<number> {
  let runs: number[] | undefined;
  for (let i = 1; i < count; i++) {
    if (flat[2 * i]! < flat[2 * i - 2]!) {
      if (!runs) runs = [0];
      runs.push(i);
      if (runs.length > MAX_RUNS) return sortedByStart(flat, count);
    }
  }
  if (!runs) return flat;
  runs.push(count);
  return mergedRuns(flat, count, runs);
}

const MAX_RUNS = 64;

/** Merges the sorted runs of intervals starting at `runs` (interval indexes, then `count`), two by two. */
function mergedRuns(flat: ArrayLike<number>, count: number, runs: number[]): Float64Array {
  let from = Float64Array.from(flat);
  let to = new Float64Array(2 * count);
  while (runs.length > 2) {
    const next = [0];
    for (let r = 0; r + 1 < runs.length; r += 2) {
      const low = runs[r]!;
      const middle = runs[r + 1]!;
      const high = r + 2 < runs.length ? runs[r + 2]! : middle;
      let i = low;
      let j = middle;
      let k = 2 * low;
      while (i < middle && j < high) {
        // The left run's interval first on equal starts: stable.
        const m = from[2 * j]! < from[2 * i]! ? j++ : i++;
        to[k++] = from[2 * m]!;
        to[k++] = from[2 * m + 1]!;
      }
      if (i < middle) to.set(from.subarray(2 * i, 2 * middle), k);
      else if (j < high) to.set(from.subarray(2 * j, 2 * high), k);
      next.push(high);
    }
    runs = next;
    [from, to] = [to, from];
  }
  return from;
}

function sortedByStart(flat: ArrayLike<number>, count: number): ArrayLike<number> {
  // Keys start·2^21 + index in a Float64Array: a numeric sort without a comparator call per comparison.
  // Exact while |start| < 2^31 minutes (4,000 years) and count < 2^21.
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) keys[i] = flat[2 * i]! * INDEX_SPAN + i;
  keys.sort();
  const sorted = new Array<number>(2 * count);
  for (let i = 0; i < count; i++) {
    const index = keys[i]! - Math.floor(keys[i]! / INDEX_SPAN) * INDEX_SPAN;
    sorted[2 * i] = flat[2 * index]!;
    sorted[2 * i + 1] = flat[2 * index + 1]!;
  }
  return sorted;
}

const INDEX_SPAN = 2 ** 21;

/** Appends [start, end) to `out` whose last start is at most `start`, merging when they overlap (or touch). */
function appendMerged(out: Intervals, start: number, end: number, joinTouching = true): void {
  if (end <= start) return;
  const last = out.length - 1;
  if (last > 0 && (start < out[last]! || (joinTouching && start === out[last]!))) {
    if (end > out[last]!) out[last] = end;
  } else {
    out.push(start, end);
  }
}

/** Intersection of two normalized lists (linear merge). */
export function intersectIntervals(a: Intervals, b: Intervals): Intervals {
  const out: Intervals = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i]!, b[j]!);
    const end = Math.min(a[i + 1]!, b[j + 1]!);
    if (end > start) out.push(start, end);
    if (a[i + 1]! < b[j + 1]!) i += 2;
    else j += 2;
  }
  return out;
}

/** Union of normalized lists, merged pairwise (total length n, k lists: O(n log k)). */
export function unionIntervals(lists: readonly Intervals[]): Intervals {
  if (lists.length === 0) return [];
  let level = [...lists];
  while (level.length > 1) {
    const next: Intervals[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? unionOfTwo(level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
}

function unionOfTwo(a: Intervals, b: Intervals): Intervals {
  const out: Intervals = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! <= b[j]!)) {
      appendMerged(out, a[i]!, a[i + 1]!);
      i += 2;
    } else {
      appendMerged(out, b[j]!, b[j + 1]!);
      j += 2;
    }
  }
  return out;
}

/**
 * Milliseconds to minutes for busy time, exactly: every slot edge is a whole minute, and for a whole minute m,
 * `start < m` ⇔ `floor(start) < m` and `end > m` ⇔ `ceil(end) > m`, so rounding outward decides every overlap
 * with a slot as the milliseconds would.
 */
export function busyMinutes(startMs: number, endMs: number): [number, number] {
  return [Math.floor(startMs / MINUTE_MS), Math.ceil(endMs / MINUTE_MS)];
}

/** `a` less every part of `b`, both normalized (linear merge). */
export function subtractIntervals(a: Intervals, b: Intervals): Intervals {
  const out: Intervals = [];
  let j = 0;
  for (let i = 0; i < a.length; i += 2) {
    let start = a[i]!;
    const end = a[i + 1]!;
    while (j < b.length && b[j + 1]! <= start) j += 2;
    for (let k = j; k < b.length && b[k]! < end; k += 2) {
      if (b[k]! > start) out.push(start, b[k]!);
      start = Math.max(start, b[k + 1]!);
    }
    if (start < end) out.push(start, end);
  }
  return out;
}
