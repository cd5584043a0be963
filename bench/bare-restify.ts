// The ceiling the service is measured against: a bare restify 11 server on loopback, in its
// own process like the service, answering GET /json with a fixed JSON document of about 1 KB.
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

const server = restify.createServer({ handleUncaughtExceptions: false });
server.get('/json', (_req, res, next) => { res.send(body); next(); });
server.listen(port, '127.0.0.1', () => { process.send?.('ready'); });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
