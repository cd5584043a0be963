// The ceiling the service is measured against: a bare restify 11 server on loopback, in its
// own process like the service, answering GET /json with a fixed JSON document of about 1 KB.
// It also answers GET /bytes with whatever bytes and headers its parent last sent it (over
// the fork's channel): the same bytes as one of the service's answers, so the load
// generator's own ceiling for an answer of that size is measured too.
//   node dist/bench/bare-restify.js PORT
import restify from 'restify';

const port = Number(process.argv[2] ?? 18_999);
const body = {
  id: 7, name: 'Emberfall Trading Company', kind: 'merchant company', location_id: 'emberfall', status: 'active',
  treasury: 12_500, reputation: 41, founded_day: 3, description: 'A company of traders that buys grain in the river valleys and sells it in the hills.',
  holdings: { food: 120, timber: 40, ore: 12, cloth: 8, tools: 3 },
  members: Array.from({ length: 5 }, (_, i) => ({ id: 100 + i, name: `Adventurer ${i}`, level: 2 + i, role: 'guard', wage: 12 })),
  projects: [{ id: 3, kind: 'warehouse', progress: 0.4, budget: 900 }],
};

/** The bytes GET /bytes answers, as the parent sent them. */
let fixed: { body: Buffer; headers: Record<string, string | number> } = { body: Buffer.from('{}'), headers: { 'content-type': 'application/json' } };
process.on('message', (m: { bytes?: { base64: string; headers: Record<string, string> } }) => {
  if (!m.bytes) return;
  const bytes = Buffer.from(m.bytes.base64, 'base64');
  fixed = { body: bytes, headers: { ...m.bytes.headers, 'content-length': bytes.length } };
  process.send?.('bytes');
});

const server = restify.createServer({ handleUncaughtExceptions: false });
server.get('/json', (_req, res, next) => { res.send(body); next(); });
server.get('/bytes', (_req, res, next) => { res.writeHead(200, fixed.headers); res.end(fixed.body); next(); });
server.listen(port, '127.0.0.1', () => { process.send?.('ready'); });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
