// `npm start`: serve the world until interrupted.
import { startWorld } from './app';
import { readConfig } from './config';

async function main() {
  const config = readConfig();
  const world = await startWorld(config);
  console.log(`worldsim: day ${await world.services.day()}, listening on ${config.host}:${world.port}, data in ${config.dataDir}`);
  // A generated key is shown this once: only its hash is kept. A configured key is not printed.
  const { admin, spectator } = world.generatedKeys;
  if (admin) console.log(`worldsim: X-Admin-Key ${admin} (generated now and shown only this once; keep it)`);
  if (spectator) console.log(`worldsim: X-Spectator-Key ${spectator} (generated now and shown only this once; keep it)`);
  const stop = async () => {
    await world.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e) => {
  console.error(`worldsim could not start: ${(e as Error).message}`);
  process.exit(1);
});
