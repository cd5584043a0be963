// The spectator page (GET /): static files from http/page, served by the service itself.
// The page reads the public JSON endpoints and the live feed; it needs nothing from
// outside the service (no CDN), so it works offline.
import fs from 'fs';
import path from 'path';
import type restify from 'restify';

/** The page's files and their types; nothing else under the folder is served. */
export const PAGE_FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** Only the service itself: scripts, styles, requests and the stream all come from it. */
const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The folder of the page's files: beside this module when run from source, in the sources when run from dist/. */
export function pageFolder(): string {
  const candidates = [path.join(__dirname, 'page'), path.resolve(__dirname, '..', '..', 'http', 'page')];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
  if (!found) throw new Error(`the spectator page's files are missing (looked in ${candidates.join(', ')})`);
  return found;
}

/** Registers GET / and GET /page/{file}. The files are read once, at start-up. */
export function serveSpectatorPage(server: restify.Server, folder = pageFolder()): void {
  const files = new Map(Object.entries(PAGE_FILES).map(([name, type]) => [name, { type, body: fs.readFileSync(path.join(folder, name)) }]));
  const send = (res: restify.Response, name: string) => {
    const file = files.get(name)!;
    res.writeHead(200, {
      'Content-Type': file.type,
      'Content-Length': file.body.length,
      // A new version of the service serves a new page at once.
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(file.body);
  };
  server.get('/', (_req: restify.Request, res: restify.Response, next: restify.Next) => {
    send(res, 'index.html');
    next();
  });
  server.get('/page/:file', (req: restify.Request, res: restify.Response, next: restify.Next) => {
    const name = String(req.params?.file ?? '');
    if (!files.has(name)) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ detail: `no page file ${name}` }));
    } else {
      send(res, name);
    }
    next();
  });
}
