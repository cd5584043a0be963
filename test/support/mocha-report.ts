// What a mocha process ended with, for the closing summary of test/run.ts: its passing and
// failing counts, and for each failure its titles and its error (without the stack), so
// that the tail of a long run, which is often all a CI log keeps, says what failed and why.

/** How many lines of each failure (its titles, then its error up to the stack) the closing summary keeps. */
const FAILURE_LINES = 12;

export function ending(what: string, seconds: number, output: string): string {
  const lines = output.split('\n');
  const counts = lines.filter((l) => /^\s+\d+ (passing|failing|pending)/.test(l)).map((l) => l.trim()).join(', ');
  const at = lines.findIndex((l) => /^\s+\d+ failing/.test(l));
  return [`${what}: ${seconds} s; ${counts || 'no count (did it start?)'}`, ...(at < 0 ? [] : failureBlocks(lines.slice(at + 1)))].join('\n');
}

/**
 * Mocha's report of each failure after its "N failing" line: the numbered title, the
 * nested titles, the error and its stack. Kept up to the stack, at most FAILURE_LINES
 * lines each, so that the tail of a run says which test failed and why.
 */
function failureBlocks(report: string[]): string[] {
  const blocks: string[][] = [];
  for (const line of report) {
    if (/^\s{2}\d+\) /.test(line)) blocks.push([line]);
    else if (blocks.length > 0 && line.trim() !== '') blocks[blocks.length - 1].push(line);
  }
  return blocks.flatMap((b) => {
    const stack = b.findIndex((l) => /^\s+at /.test(l));
    return (stack < 0 ? b : b.slice(0, stack)).slice(0, FAILURE_LINES).map((l) => `   ${l.trimEnd()}`);
  });
}
