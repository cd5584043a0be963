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

/**
 * A logger writing JSON lines to stdout, or each line (without its newline) to `write`.
 * Stdout is written asynchronously: the lines logged while a write is on its way go together
 * in the next one, rather than a system call a request; pino writes what is left when the
 * process exits. A SIGKILL or a power cut loses the lines not yet written (a few ms of them).
 */
export function jsonLogger(write?: (line: string) => void, base: Record<string, unknown> = {}): Logger {
  const options: pino.LoggerOptions = {
    base: { service: 'worldsim', ...base },
    timestamp: isoTimeOncePerMs(),
    formatters: { level: (label) => ({ level: label }) },
  };
  if (!write) return pino(options, pino.destination({ dest: 1, sync: false }));
  return pino(options, { write: (chunk: string) => write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) });
}

/** The world's log function on a logger: each line becomes the message of an info record. */
export const lineLog = (logger: Logger) => (line: string) => logger.info(line);
