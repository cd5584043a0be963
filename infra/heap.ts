// How far V8 lets the heap grow between full collections. By default it may let the old
// generation reach up to four times what survived the last one when collecting is cheap
// for it: a busy world of 112,000 awake actors (about 330 MB live) then held about 1 GB of
// heap and 1.1 GB of RSS. A fixed factor of two keeps it at about 850 MB of RSS for the same
// day's tick at about the same speed; a factor of 1.5 kept 700 MB but collected often enough
// to slow some ticks by half (docs/performance.md, change 14).
import v8 from 'v8';

/** The old generation grows to at most (1 + HEAP_GROWING_PERCENT / 100) times what survived the last full collection. */
export const HEAP_GROWING_PERCENT = 100;

/** Sets the growing factor for this process (the service, and the benchmarks that host a world in theirs). */
export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
