// Answers that Node's HTTP parser gives before a request reaches restify (a header block
// over the size limit, a malformed request line, an unknown method, a request that took
// too long, an Expect the server does not meet). Node would answer them with an empty
// body; here they carry {"detail": "..."} like every other answer, and close the
// connection, since what follows on it cannot be trusted.
import { STATUS_CODES, type Server, type IncomingMessage, type ServerResponse } from 'http';
import type { Duplex } from 'stream';

/** The status and the words of an error of Node's parser (its code is llhttp's HPE_* or Node's ERR_*). */
export function lowLevelAnswer(code: string | undefined): { status: number; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, detail: 'the request headers are too large (at most 16 KiB in all)' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: 'the request did not arrive in time' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, detail: 'the request method is not an HTTP method this server knows; use GET, POST or PATCH' };
    case 'HPE_INVALID_URL':
      return { status: 400, detail: 'the request target is not a valid path' };
    case 'HPE_INVALID_VERSION':
      return { status: 400, detail: 'the request line does not end with a valid HTTP version' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_CHUNK_SIZE':
      return { status: 400, detail: 'the request body is not framed correctly (Content-Length or Transfer-Encoding)' };
    default:
      return { status: 400, detail: 'the request could not be read as HTTP/1.1' };
  }
}

/** A whole HTTP/1.1 answer with a JSON body, written straight to the socket; the connection closes after it. */
export function rawJsonAnswer(status: number, detail: string): string {
  const body = JSON.stringify({ detail });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Replaces Node's empty-bodied answers to unreadable requests on `server`. */
export function answerLowLevelErrors(server: Server, log: (line: string) => void): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    // A client that went away (or a socket already closing) is told nothing.
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    // An answer already begun on this connection (pipelined requests) must not be broken into.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (inFlight && inFlight.headersSent) {
      socket.destroy();
      return;
    }
    const { status, detail } = lowLevelAnswer(err.code);
    log(`unreadable request answered ${status} (${err.code ?? 'no code'})`);
    socket.end(rawJsonAnswer(status, detail));
  });
  // `Expect: 100-continue` is met by Node; any other expectation is refused (417) with a body.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({ detail: `the expectation "${String(req.headers.expect).slice(0, 100)}" cannot be met; only 100-continue is supported` });
    res.writeHead(417, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
    res.end(body);
  });
}
