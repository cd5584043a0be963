// Composition root: wires the store, bus and clock adapters to the actors and the HTTP
// server. The embedded default needs no external server.
import type { AddressInfo } from 'net';
import { adventurerKind } from '../actors/adventurer/actor';
import { agentKind } from '../actors/agent/actor';
import { CLOCK_ID, clockKind } from '../actors/clock/actor';
import { dailyTick } from '../actors/clock/daily';
import { locationKind } from '../actors/location/actor';
import { organizationKind } from '../actors/organization/actor';
import { questKind } from '../actors/quest/actor';
import { contractKind } from '../actors/contract/actor';
import { allianceKind } from '../actors/alliance/actor';
import { relationshipKind } from '../actors/relationship/actor';
import { suggestionKind } from '../actors/suggestion/actor';
import { worldEventKind } from '../actors/world-event/actor';
import { Region } from '../actors/region';
import { seedWorld } from '../actors/world/seed';
import { newOperatorKey } from '../http/auth';
import { routes } from '../http/routes';
import { buildServer } from '../http/server';
import { currentDay, type Keys, type Services } from '../http/services';
import { EmbeddedBus } from './bus/embedded-bus';
import { TOPICS } from '../actors/ports/bus';
import { IntervalTicker } from './clock/interval-ticker';
import type { Config } from './config';
import type { Store } from '../actors/ports/store';
import { SqliteStore } from './store/sqlite-store';

export interface World {
  url: string;
  port: number;
  keys: Keys;
  services: Services;
  /** The in-process region behind services.entities (the benchmark reports the actors awake). */
  region: Region;
  close(): Promise<void>;
}

/** The operator keys: from the environment, or generated once and kept in the store. */
async function operatorKeys(store: Store, config: Config): Promise<{ keys: Keys; generated: string[] }> {
  const generated: string[] = [];
  const keyFor = async (configured: string | null, setting: string) => {
    if (configured) return configured;
    let key = await store.setting(setting);
    if (!key) {
      key = newOperatorKey();
      await store.setSetting(setting, key);
      generated.push(setting);
    }
    return key;
  };
  return { keys: { admin: await keyFor(config.adminKey, 'admin_key'), spectator: await keyFor(config.spectatorKey, 'spectator_key') }, generated };
}

export async function startWorld(config: Config, log: (line: string) => void = (l) => console.log(l)): Promise<World> {
  const { server, setReady } = buildServer(routes, log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const store = new SqliteStore(config.dataDir);
  const { keys } = await operatorKeys(store, config);
  // The world's seed is fixed when it is first created; a restart keeps it.
  const seed = await store.setting('world_seed') ?? config.seed;
  await store.setSetting('world_seed', seed);

  const bus = new EmbeddedBus();
  const region = new Region(store.engine, store, [
    clockKind(bus), agentKind, worldEventKind, contractKind, relationshipKind, allianceKind, questKind, locationKind, adventurerKind, organizationKind, suggestionKind,
  ], { log });
  bus.subscribe(TOPICS.days, dailyTick(region, store, seed, (sequence) => store.nextId(sequence), log));

  await seedWorld(region, store, seed);
  // Settle the current day again in case the last run stopped halfway through it.
  await region.ask('clock', CLOCK_ID, { type: 'resume' }, 30 * 60_000);

  const services: Services = { entities: region, read: store, store, keys, seed, day: () => currentDay(store) };
  const ticker = new IntervalTicker();
  ticker.start(config.daySeconds * 1000, () => region.ask('clock', CLOCK_ID, { type: 'advance' }, 30 * 60_000));
  setReady(services);

  return {
    url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
    port,
    keys,
    services,
    region,
    async close() {
      ticker.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      region.stop();
      await bus.close();
    },
  };
}
