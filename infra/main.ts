// `npm start`: serve the world until interrupted. The log is JSON lines on stdout
// (infra/log.ts); operator keys the service generated are announced on stderr, apart
// from the log, and configured ones not at all.
import { nodeName, startWorld } from './app';
import type { OperatorRole } from './operator-keys';
import { isCluster, readConfig } from './config';
import { limitHeapGrowth, missingNodeFlags, NODE_FLAGS } from './heap';
import { jsonLogger } from './log';

/** How long a start-up interrupted by SIGINT or SIGTERM may still take before the process gives up on it. */
const INTERRUPTED_START_MS = 30_000;

async function main() {
  limitHeapGrowth();
  const config = readConfig();
  const logger = jsonLogger(undefined, isCluster(config) ? { node: nodeName(config) } : {});
  // A generated key is shown this once, and never in the log: only its hash is kept. A configured key is not printed.
  let generated: Partial<Record<OperatorRole, string>> = {};
  const shown = new Set<OperatorRole>();
  const showKeys = () => {
    for (const [role, header] of [['admin', 'X-Admin-Key'], ['spectator', 'X-Spectator-Key']] as const) {
      const key = generated[role];
      if (!key || shown.has(role)) continue;
      shown.add(role);
      process.stderr.write(`worldsim: ${header} ${key} (generated now and shown only this once; keep it)\n`);
    }
  };
  // The first SIGINT or SIGTERM stops the world cleanly; while it starts, the keys it has
  // generated (and kept hashed) are shown at once, and the start is let finish first. A
  // second signal stops the process at once.
  let stop: (() => Promise<void>) | null = null;
  let signals = 0;
  let giveUp: NodeJS.Timeout | undefined;
  const onSignal = () => {
    if (++signals > 1) {
      process.stderr.write('worldsim: stopped at once (a second signal)\n');
      process.exit(130);
    }
    if (stop) { void stop(); return; }
    showKeys();
    giveUp = setTimeout(() => {
      process.stderr.write('worldsim: stopped while starting\n');
      process.exit(1);
    }, INTERRUPTED_START_MS);
    giveUp.unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const world = await startWorld(config, logger, (keys) => {
    generated = keys;
    // Generated after a signal came: shown at once, as the start may yet be stopped.
    if (signals > 0) showKeys();
  });
  logger.info(`worldsim: day ${await world.services.day()}, listening on ${config.host}:${world.port}, data in ${config.dataDir}`);
  const missing = missingNodeFlags();
  if (missing.length > 0) logger.warn(`worldsim: node was started without ${missing.join(' ')} (npm start gives ${NODE_FLAGS.join(' ')}): the world runs the same, its daily tick slower`);
  // The log goes out in chunks (infra/log.ts): the line that says where the world listens goes before the keys.
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  showKeys();
  stop = async () => {
    clearTimeout(giveUp);
    await world.close();
    // The log's last lines are written before the process exits (it writes asynchronously).
    logger.flush(() => process.exit(0));
    setTimeout(() => process.exit(0), 2_000).unref();
  };
  if (signals > 0) await stop();
}

main().catch((e) => {
  process.stderr.write(`worldsim could not start: ${(e as Error).message}\n`);
  process.exit(1);
});
