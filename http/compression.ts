// gzip for the answers the service keeps (read-cache.ts). A kept answer is compressed the
// first time it is asked for again by a client that accepts gzip, and the compressed bytes
// are kept beside the text: a read answered many times in one generation of the read model
// (the rulebook, a listing between two commits) is compressed once. An answer computed for
// one request only is sent as it is: compressing costs the main thread 0.1 ms even for a
// small answer, more than the bytes it saves cost on the network (docs/api.md, "Compression").
import zlib from 'zlib';
import Negotiator from 'negotiator';
import type { IncomingMessage, ServerResponse } from 'http';

/** Below this many bytes an answer is sent as it is: a TCP segment or so, where gzip saves nothing worth its cost. */
export const GZIP_MIN_BYTES = 4_096;

/** Whether the request's Accept-Encoding takes gzip (`gzip` or `*`, with a q above 0). */
export function acceptsGzip(req: IncomingMessage): boolean {
  if (!req.headers['accept-encoding']) return false;
  return new Negotiator(req).encodings(['gzip']).includes('gzip');
}

/**
 * The gzipped bytes of `body` for this request, made once and kept in `kept`; null when the
 * body is under the bound or the client does not take gzip. The size is checked first: most
 * answers are small, and reading Accept-Encoding costs more than that.
 */
export function gzipFor(req: IncomingMessage, kept: { gzip?: Buffer }, body: string | Buffer, level: number = zlib.constants.Z_BEST_SPEED): Buffer | null {
  if (body.length < GZIP_MIN_BYTES || !acceptsGzip(req)) return null;
  // By default the fastest level: JSON still shrinks four to thirteen times, at half the cost of the default.
  kept.gzip ??= zlib.gzipSync(body, { level });
  return kept.gzip;
}

/**
 * `gzipFor` for an answer that never changes while the process runs: compressed once for
 * the life of the process, so at the best level.
 */
export const gzipFixedFor = (req: IncomingMessage, kept: { gzip?: Buffer }, body: string | Buffer): Buffer | null =>
  gzipFor(req, kept, body, zlib.constants.Z_BEST_COMPRESSION);

/** An answer that never changes (the API's description, the reference page's files): gzipped once, at the best level, for every client that takes it. */
export class FixedAnswer {
  private readonly kept: { gzip?: Buffer } = {};

  constructor(private readonly type: string, private readonly body: string | Buffer, private readonly cache = 'no-cache') {}

  send(req: IncomingMessage, res: ServerResponse): void {
    const headers = { 'content-type': this.type, 'cache-control': this.cache, vary: 'Accept-Encoding' };
    const packed = gzipFixedFor(req, this.kept, this.body);
    if (packed) {
      res.writeHead(200, { ...headers, 'content-encoding': 'gzip', 'content-length': packed.length });
      res.end(packed);
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(this.body) });
    res.end(this.body);
  }
}
