// Configuration from the environment (api-conventions.md, "Running the service").
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  adminKey: string | null;
  spectatorKey: string | null;
  daySeconds: number;
  seed: string;
}

export const DEFAULT_SEED = 'emberfall';

function number(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return n;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nonEmpty = (v: string | undefined) => (v && v.length > 0 ? v : null);
  return {
    port: number(env, 'PORT', 8080, 0),
    host: env.HOST || '0.0.0.0',
    dataDir: env.WORLD_DATA_DIR || './data',
    adminKey: nonEmpty(env.WORLD_ADMIN_KEY),
    spectatorKey: nonEmpty(env.WORLD_SPECTATOR_KEY),
    daySeconds: number(env, 'WORLD_DAY_SECONDS', 3600, 0),
    seed: env.WORLD_SEED || DEFAULT_SEED,
  };
}
