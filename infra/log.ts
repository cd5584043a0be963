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
  if (!write) return pino(options, pino.destination({ dest: 1, sync: false, minLength: LOG_CHUNK_BYTES, periodicFlush: LOG_FLUSH_MS }));
  return pino(options, { write: (chunk: string) => write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) });
}

/** The world's log function on a logger: each line becomes the message of an info record. */
export const lineLog = (logger: Logger) => (line: string) => logger.info(line);
