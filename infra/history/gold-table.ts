// An example consumer of the history topic (docs/history-topic.md): follows the topic from
// the beginning and keeps a running table of the gold each organization gained and spent,
// from the ledger lines of the events, deduplicating by event id.
//
//   node dist/infra/history/gold-table.js [--brokers 127.0.0.1:9092] [--topic world.history]
//        [--until-idle <ms>] [--json]
//
// It joins a consumer group of its own (a fresh one each run, so it reads from the start),
// prints the table every few seconds while it follows the topic, and with --until-idle
// stops once no record has arrived for that long and prints the final table (--json: as
// one JSON object {events, duplicates, organizations: {id: {gained, spent, net}}}).
import crypto from 'crypto';
import { Kafka, logLevel } from 'kafkajs';

interface Line { organization_id: number; flow: string; gold?: number }
interface HistoryRecord { schema: number; id: number; organization_ids: number[]; data?: { ledger?: Line[] } }

export interface GoldTable {
  events: number;
  duplicates: number;
  organizations: Record<string, { gained: number; spent: number; net: number }>;
}

/** Folds one record into the table; a record seen before (same id) is counted as a duplicate and changes nothing. */
export function foldRecord(table: GoldTable, seen: Set<number>, r: HistoryRecord): void {
  if (seen.has(r.id)) { table.duplicates += 1; return; }
  seen.add(r.id);
  table.events += 1;
  for (const l of r.data?.ledger ?? []) {
    if (!l.gold) continue;
    const row = table.organizations[l.organization_id] ?? (table.organizations[l.organization_id] = { gained: 0, spent: 0, net: 0 });
    if (l.gold > 0) row.gained += l.gold; else row.spent -= l.gold;
    row.net += l.gold;
  }
}

function render(t: GoldTable): string {
  const rows = Object.entries(t.organizations).sort(([a], [b]) => Number(a) - Number(b))
    .map(([id, r]) => `${id.padStart(8)} ${String(r.gained).padStart(10)} ${String(r.spent).padStart(10)} ${String(r.net).padStart(10)}`);
  return [`${t.events} events (${t.duplicates} duplicates skipped)`, `${'org'.padStart(8)} ${'gained'.padStart(10)} ${'spent'.padStart(10)} ${'net'.padStart(10)}`, ...rows].join('\n');
}

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

async function main() {
  const brokers = (arg('brokers', process.env.KAFKA_BROKERS ?? '127.0.0.1:9092') as string).split(',');
  const topic = arg('topic', process.env.WORLD_HISTORY_TOPIC ?? 'world.history') as string;
  const untilIdle = arg('until-idle') ? Number(arg('until-idle')) : null;
  const json = process.argv.includes('--json');
  const kafka = new Kafka({ clientId: 'gold-table', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `gold-table-${crypto.randomBytes(4).toString('hex')}`, maxWaitTimeInMs: 250 });
  const table: GoldTable = { events: 0, duplicates: 0, organizations: {} };
  const seen = new Set<number>();
  let last = Date.now();
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (message.value) foldRecord(table, seen, JSON.parse(message.value.toString()) as HistoryRecord);
      last = Date.now();
    },
  });
  const printer = json ? null : setInterval(() => console.log(`\n${render(table)}`), 5_000);
  await new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (untilIdle !== null && Date.now() - last >= untilIdle) { clearInterval(check); resolve(); }
    }, 100);
    process.once('SIGINT', () => { clearInterval(check); resolve(); });
  });
  if (printer) clearInterval(printer);
  await consumer.disconnect();
  console.log(json ? JSON.stringify(table) : render(table));
}

if (require.main === module) {
  main().catch((e) => { console.error(`gold-table: ${(e as Error)?.message ?? e}`); process.exit(1); });
}
