// Where the mixed workload's time goes, step by step: one connection plays the mix's agent
// session (mix.ts) over and over against the service in its own process, and each step's
// cost is the CPU time the service's main thread spent from just before the request to
// just after its answer (its `schedstat`, in nanoseconds; Linux only). With one request
// at a time nothing else runs on that thread meanwhile, so a step's time is its own (the
// writer thread is not counted). Costs are higher than a request's share under 32
// connections, where commits and wake-ups are shared; what counts is their proportions.
//   node dist/bench/mix-steps.js [warm-up sessions=600] [measured sessions=200]
// The warm-up makes the world of the mix's middle: hundreds of agents, organizations and
// quests (the quest board a page of 500).
import fs from 'fs';
import os from 'os';
import path from 'path';
import { rawRequest } from './client';
import { mixRequests } from './mix';
import { ASKS, seed, startService, waitFor } from './service';

const PORT = 19_500 + Math.floor(Math.random() * 400);
const [WARM = 600, MEASURED = 200] = process.argv.slice(2).map(Number);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Step = { method?: string; setupRequest: (req: any, ctx: any) => any; onResponse?: (status: number, body: string, ctx: any) => void };

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'worldsim-mix-steps-'));
  const service = startService(PORT, dataDir);
  const stop = () => { service.kill('SIGKILL'); fs.rmSync(dataDir, { recursive: true, force: true }); };
  process.on('exit', stop);
  /** Nanoseconds the service's main thread has run so far. */
  const cpu = () => Number(fs.readFileSync(`/proc/${service.pid}/task/${service.pid}/schedstat`, 'utf8').split(' ')[0]);
  await waitFor(PORT, '/healthz');
  // The mix's world, as run.ts seeds it for 32 connections.
  const world = await seed(PORT, 32);
  const steps = mixRequests(world) as Step[];

  const costs = steps.map(() => ({ ns: 0, bytes: 0, n: 0, label: '' }));
  for (let session = 0; session < WARM + MEASURED; session++) {
    const ctx: Record<string, unknown> = {};
    for (const [i, step] of steps.entries()) {
      const req = step.setupRequest({ method: step.method ?? 'GET' }, ctx);
      const method = req.method ?? step.method ?? 'GET';
      const before = cpu();
      const answer = await rawRequest(PORT, method, req.path, req.body === undefined ? undefined : JSON.parse(req.body), { ...ASKS, ...req.headers });
      // A moment for what the answer set going on the main thread (its log line, a kept answer's gzip).
      await sleep(1);
      const after = cpu();
      step.onResponse?.(answer.status, answer.body.toString(), ctx);
      if (session >= WARM) {
        costs[i].ns += after - before; costs[i].bytes += answer.body.length; costs[i].n += 1;
        costs[i].label ||= `${method} ${String(req.path).replace(/\/\d+/g, '/{id}').replace(/location_id=[a-z-]+/, 'location_id={place}')}`;
      }
    }
  }
  const total = costs.reduce((a, c) => a + c.ns / c.n, 0);
  console.log(`The mix's ${steps.length} steps, one connection, ${MEASURED} sessions measured after ${WARM}: the service's main thread a step (µs), its share of a session, the answer's bytes as sent (the mix's requests take gzip)`);
  console.log('| step | request | main thread µs | share | answer bytes |\n|---|---|---|---|---|');
  for (const [i, c] of costs.entries()) {
    const us = c.ns / c.n / 1000;
    console.log(`| ${i + 1} | ${c.label} | ${us.toFixed(0)} | ${((100 * c.ns) / c.n / total).toFixed(1)}% | ${Math.round(c.bytes / c.n).toLocaleString('en-US')} |`);
  }
  console.log(`A session: ${(total / 1e6).toFixed(1)} ms of the main thread, ${(total / steps.length / 1000).toFixed(0)} µs a request.`);
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
