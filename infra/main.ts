// `npm start`: serve the world until interrupted. The log is JSON lines on stdout
// (infra/log.ts); operator keys the service generated are announced on stderr, apart
// from the log, and configured ones not at all.
import { nodeName, startWorld } from './app';
import { isCluster, readConfig } from './config';
import { limitHeapGrowth } from './heap';
import { jsonLogger } from './log';

/** How long a start-up interrupted by SIGINT or SIGTERM may still take before the process gives up on it. */
const INTERRUPTED_START_MS = 30_000;

async function main() {
  limitHeapGrowth();
  const config = readConfig();
  const logger = jsonLogger(undefined, isCluster(config) ? { node: nodeName(config) } : {});
  // A signal before the keys are shown is held until they are: a key generated (and kept
  // hashed) by then is printed before the process stops, or it would be lost for good.
  let stop: (() => Promise<void>) | null = null;
  let interrupted = false;
  const onSignal = () => {
    if (stop) { void stop(); return; }
    if (interrupted) return;
    interrupted = true;
    setTimeout(() => {
      process.stderr.write('worldsim: stopped while starting\n');
      process.exit(1);
    }, INTERRUPTED_START_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const world = await startWorld(config, logger);
  logger.info(`worldsim: day ${await world.services.day()}, listening on ${config.host}:${world.port}, data in ${config.dataDir}`);
  // The log goes out in chunks (infra/log.ts): the line that says where the world listens goes before the keys.
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  // A generated key is shown this once, and never in the log: only its hash is kept. A configured key is not printed.
  const { admin, spectator } = world.generatedKeys;
  if (admin) process.stderr.write(`worldsim: X-Admin-Key ${admin} (generated now and shown only this once; keep it)\n`);
  if (spectator) process.stderr.write(`worldsim: X-Spectator-Key ${spectator} (generated now and shown only this once; keep it)\n`);
  let stopping: Promise<void> | null = null;
  stop = () => (stopping ??= (async () => {
    await world.close();
    // The log's last lines are written before the process exits (it writes asynchronously).
    logger.flush(() => process.exit(0));
    setTimeout(() => process.exit(0), 2_000).unref();
  })());
  if (interrupted) await stop();
}

main().catch((e) => {
  process.stderr.write(`worldsim could not start: ${(e as Error).message}\n`);
  process.exit(1);
});
