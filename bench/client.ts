// A small keep-alive JSON client for the benchmark's setup (the load itself is autocannon's).
import http from 'http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** An answer as it came over the wire: its status, its headers and its bytes (not decompressed). */
export interface RawAnswer { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

export function rawRequest(port: number, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, method, path: url, agent, headers: { ...headers, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

/** `rawRequest`, its body read as JSON (or as text when it is not JSON). */
export async function request(port: number, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const answer = await rawRequest(port, method, url, body, headers);
  const text = answer.body.toString();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: answer.status, body: parsed };
}
