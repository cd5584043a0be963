// How far V8 lets the heap grow between full collections. By default it may let the old
// generation reach up to four times what survived the last one when collecting is cheap
// for it: a busy world of 112,000 awake actors (about 330 MB live) then held about 1 GB of
// heap and 1.1 GB of RSS. A fixed factor of two keeps it at about 850 MB of RSS for the same
// day's tick at about the same speed; a factor of 1.5 kept 700 MB but collected often enough
// to slow some ticks by half (docs/performance.md, change 14).
import v8 from 'v8';

/** The old generation grows to at most (1 + HEAP_GROWING_PERCENT / 100) times what survived the last full collection. */
export const HEAP_GROWING_PERCENT = 100;

/**
 * The V8 flags the service's process starts with (`npm start`, and every script or test that
 * starts `dist/infra/main.js` or hosts a world in its own process): a young generation of
 * two 32 MiB semi-spaces instead of V8's 16. They cannot be set once the process runs.
 * The awake actors are old objects whose state each command replaces with young ones, and
 * the in-flight work of a day's fan-out is young too, so a small young generation is
 * scavenged often while much of it is still alive: the busy world's tick scavenged about 30
 * times a day, a quarter of its main thread, and ran 15-25% faster with 32 MiB
 * (docs/performance.md, change 37). A process started without them works the same, slower.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/** The flags of NODE_FLAGS this process was not started with (on its command line or in NODE_OPTIONS). */
export function missingNodeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map((f) => f.replace(/_/g, '-')));
  return NODE_FLAGS.filter((f) => !given.has(f));
}

/** Sets the growing factor for this process (the service, and the benchmarks that host a world in theirs). */
export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
