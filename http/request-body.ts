// Reading a request's body: its size limit, a client that goes away part-way, and text
// that is not valid Unicode (invalid UTF-8 bytes, or a lone surrogate escaped in JSON),
// which is refused rather than stored altered or half-readable.
import type { IncomingMessage } from 'http';
import { detailItem, type DetailItem } from '../codecs/report';
import { HttpError } from './errors';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The client closed its connection before the whole body arrived: nobody is left to
 * answer, and it is nothing the service did wrong.
 */
export class ClientGoneError extends Error {
  constructor(readonly received: number) {
    super(`the client closed the connection after ${received} bytes of the body`);
  }
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      if (tooLarge) return; // discarded: the answer is already on its way
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        // Answer 413 at once and let the rest drain away; the connection closes after the
        // answer. Destroying the request here would take the answer down with it.
        tooLarge = true;
        chunks.length = 0;
        reject(new HttpError(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    // An aborted request emits 'error' (ECONNRESET, "aborted") and 'close' before 'end'.
    const gone = () => { if (!req.complete) reject(new ClientGoneError(size)); };
    req.on('error', gone);
    req.on('close', gone);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The body as text; bytes that are not UTF-8 are a 422 item (they would otherwise become U+FFFD unseen). */
export function bodyText(raw: Buffer, problems: DetailItem[]): string | undefined {
  try {
    return utf8.decode(raw);
  } catch {
    problems.push(detailItem(['body'], 'string_unicode', 'The body is not valid UTF-8; send JSON encoded as UTF-8', undefined, { position: firstInvalidUtf8(raw) }));
    return undefined;
  }
}

/** The byte offset of the first byte that does not belong to a valid UTF-8 sequence. */
function firstInvalidUtf8(raw: Buffer): number {
  let lo = 0;
  let hi = raw.length;
  // The longest valid prefix, by halving (a cut inside a sequence only shortens it by up to 3 bytes).
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    try { utf8.decode(raw.subarray(0, mid)); lo = mid; } catch { hi = mid - 1; }
  }
  return lo;
}

const isWellFormed = (s: string) => !/\p{Surrogate}/u.test(s);

/** A body full of them is told about the first few. */
const MAX_SURROGATE_ITEMS = 20;

interface Step { parent: Step | null; key: string | number }
const locOf = (base: Array<string | number>, step: Step | null) => {
  const keys: Array<string | number> = [];
  for (let s = step; s; s = s.parent) keys.push(s.key);
  return [...base, ...keys.reverse()];
};

/**
 * Strings (and field names) of parsed JSON that hold a lone surrogate: `"\ud800"` is
 * valid JSON but no character, and cannot be stored or shown faithfully. `text` is the
 * JSON it was parsed from: without a \uD800-\uDFFF escape there is nothing to look for.
 */
export function findLoneSurrogates(text: string, value: unknown, loc: Array<string | number>, out: DetailItem[]): void {
  if (!/\\u[dD][89a-fA-F]/.test(text)) return;
  // Iterative, and each item's loc is built only when it is reported: a body may nest deeply.
  const pending: Array<[unknown, Step | null]> = [[value, null]];
  const reportedBefore = out.length;
  while (pending.length && out.length - reportedBefore < MAX_SURROGATE_ITEMS) {
    const [v, at] = pending.pop()!;
    if (typeof v === 'string') {
      if (!isWellFormed(v)) out.push(detailItem(locOf(loc, at), 'string_unicode', 'Input should be a valid string: it holds a lone surrogate (\\ud800-\\udfff), which is not a character'));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) pending.push([v[i], { parent: at, key: i }]);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v).reverse()) {
        if (!isWellFormed(k)) out.push(detailItem(locOf(loc, { parent: at, key: k.replace(/\p{Surrogate}/gu, '\ufffd') }), 'string_unicode', 'A field name holds a lone surrogate (\\ud800-\\udfff), which is not a character'));
        else pending.push([x, { parent: at, key: k }]);
      }
    }
  }
}
