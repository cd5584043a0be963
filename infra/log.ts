// The service's log: one JSON object a line (pino), on stdout unless a test or a benchmark
// takes the lines. What the world says (`log(line)` everywhere) is its `msg`; the request
// log (http/request-log.ts) adds fields of its own. No key and no request body is ever
// given to it.
import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * pino's ISO time field, made once a millisecond: a busy service logs many requests in the
 * same millisecond, and formatting a date is a noticeable part of a cheap request's cost.
 */
export function isoTimeOncePerMs(now: () => number = () => Date.now()): () => string {
  let at = NaN;
  let field = '';
  return () => {
    const t = now();
    if (t !== at) { at = t; field = `,"time":"${new Date(t).toISOString()}"`; }
    return field;
  };
}

/** How much of the log is held before it is written, and for how long at most. */
const LOG_CHUNK_BYTES = 4096;
const LOG_FLUSH_MS = 250;

/** Where the log's text goes: stdout's sonic-boom, as pino.destination makes it. */
interface LogOut {
  write(text: string): unknown;
  flush(cb?: (err?: Error | null) => void): void;
}

/**
 * The lines logged in one turn of the event loop, handed on together at its end. sonic-boom
 * gathers what it is given into its chunk, but measures the byte length of all it holds
 * again for every string it adds (flattening the string it appends to): once a line, that
 * was about 3 µs of every request under load (docs/performance.md, change 39). Handed on
 * once a turn, a turn's lines cost it once. A process that exits in the middle of a turn
 * hands on what it holds first (its 'exit' listener runs before pino's, which writes what
 * sonic-boom holds).
 */
export class LinesOfATurn {
  private lines: string[] = [];
  private scheduled = false;

  constructor(private readonly out: LogOut) {}

  write(line: string): boolean {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.handOn());
    }
    return true;
  }

  /** The lines held go to the destination, in one string, in the order they were logged. */
  handOn(): void {
    this.scheduled = false;
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.out.write(text);
  }

  flush(cb?: (err?: Error | null) => void): void {
    this.handOn();
    this.out.flush(cb);
  }
}

/**
 * A logger writing JSON lines to stdout, or each line (without its newline) to `write`.
 * Stdout is written asynchronously and in chunks: lines are held until 4 KB of them are
 * waiting, or for at most 250 ms, rather than a system call a request (on a cheap read the
 * write of its log line was about a sixth of the main thread's work); pino writes what is
 * left when the process exits. A SIGKILL or a power cut loses the lines not yet written (at
 * most 250 ms of them).
 */
export function jsonLogger(write?: (line: string) => void, base: Record<string, unknown> = {}): Logger {
  const options: pino.LoggerOptions = {
    base: { service: 'worldsim', ...base },
    timestamp: isoTimeOncePerMs(),
    formatters: { level: (label) => ({ level: label }) },
  };
  if (!write) {
    const lines = new LinesOfATurn(pino.destination({ dest: 1, sync: false, minLength: LOG_CHUNK_BYTES, periodicFlush: LOG_FLUSH_MS }));
    process.prependListener('exit', () => lines.handOn());
    return pino(options, lines);
  }
  return pino(options, { write: (chunk: string) => write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) });
}

/** The world's log function on a logger: each line becomes the message of an info record. */
export const lineLog = (logger: Logger) => (line: string) => logger.info(line);
