// Kafka stopped while agents act, then started again (a broker of its own, on ports of its
// own): the API keeps serving, the day does not advance and /healthz says why; once the
// broker is back the days advance again, the relay catches up, and every event reaches
// the history topic, none twice with different content.
import assert from 'assert/strict';
import { execFile } from 'child_process';
import path from 'path';
import { parseSettings } from '../support/cassandra';
import { expectStatus, foundOrg } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';
import { allEvents, historyTopicOf, readTopic, relayCaughtUp } from '../support/kafka';
import sinon from 'sinon';
import { KafkaBus } from '../../infra/bus/kafka-bus';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ENV = { WORLD_SERVERS_DIR: path.resolve(__dirname, '..', '..', '..', 'data', 'servers-kafka-outage'), KAFKA_PORT: '29092', KAFKA_CONTROLLER_PORT: '29093' };

function broker(command: 'up' | 'down'): Promise<string> {
  const root = path.resolve(__dirname, '..', '..', '..');
  return new Promise((resolve, reject) => {
    execFile(path.join(root, 'infra', 'servers'), [command, 'kafka'], { cwd: root, env: { ...process.env, ...ENV }, timeout: 180_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`infra/servers ${command} kafka (outage broker) failed: ${stderr}`)) : resolve(String(stdout))));
  });
}

describe('Kafka that cannot be reached when the service starts', function () {
  this.timeout(60_000);
  let w: TestWorld | null = null;
  after(async () => { await w?.close(); });

  it('serves agents all the same; the day waits, and /healthz says why', async () => {
    w = await startTestWorld({ bus: 'kafka', kafka: { brokers: ['127.0.0.1:1'] } as never, seed: 'kafka-never' });
    const health = (await w.get('/healthz')).body;
    for (let i = 0; i < 50 && (await w.get('/healthz')).body.status !== 'degraded'; i++) await sleep(100);
    assert.equal((await w.get('/healthz')).body.status, 'degraded', JSON.stringify(health));
    const a = await foundOrg(w, 'Patient Traders', 'merchant company');
    expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 2 }, a.key), 200);
    const tick = await w.call('POST', '/api/tick', { admin: w.keys.admin });
    expectStatus(tick, 503);
    assert.match(tick.body.detail, /the day cannot advance/);
  });
});

describe('Kafka stopped while agents act, then started again', function () {
  this.timeout(400_000);
  let w: TestWorld | null = null;
  after(async function () {
    this.timeout(120_000);
    await w?.close();
    await broker('down').catch(() => undefined);
  });

  it('serves agents meanwhile, holds the day until the broker is back, and then publishes every event', async () => {
    const brokers = parseSettings(await broker('up')).KAFKA_BROKERS;
    assert.ok(brokers, 'the outage broker prints where it listens');
    w = await startTestWorld({ bus: 'kafka', kafka: { brokers: [brokers] } as never, seed: 'kafka-outage' });
    const world = w;
    expectStatus(await world.call('POST', '/api/tick', { admin: world.keys.admin }), 200);
    const agents = await Promise.all(Array.from({ length: 8 }, (_, i) => foundOrg(world, `Outage Crier ${i}`, 'merchant company')));

    let stop = false;
    const answers: number[] = [];
    const refusals: string[] = [];
    const load = agents.map(async (a, i) => {
      for (let n = 0; !stop; n++) {
        const r = n % 2 === 0
          ? await world.post('/api/messages', { sender_id: a.org.id, recipient_id: null, body: `Word ${n} from ${i}` }, a.key)
          // Buy one, then sell it back: the treasury lasts however long the outage takes.
          : await world.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: n % 4 === 1 ? 'buy' : 'sell', quantity: 1 }, a.key);
        answers.push(r.status);
        if (r.status >= 300) refusals.push(`${r.status} ${r.text}`);
        await sleep(100);
      }
    });

    await sleep(1_000);
    await broker('down');
    // The API serves; the day waits; /healthz says why.
    const served = answers.length;
    await sleep(3_000);
    assert.ok(answers.length > served + 20, 'agents were served while the broker was down');
    let health = (await world.get('/healthz')).body;
    for (let i = 0; i < 50 && health.status !== 'degraded'; i++) { await sleep(100); health = (await world.get('/healthz')).body; }
    assert.equal(health.status, 'degraded', JSON.stringify(health));
    assert.match(health.detail, /message bus cannot be reached/);
    const tick = await world.call('POST', '/api/tick', { admin: world.keys.admin });
    expectStatus(tick, 503);
    assert.match(tick.body.detail, /the day cannot advance/);
    assert.equal((await world.get('/api/world')).body.day, 2, 'the day did not advance');
    const lag = (await world.get('/healthz')).body.history_relay;
    assert.ok(lag.lag > 0, `events wait for the broker: ${JSON.stringify(lag)}`);

    await broker('up');
    for (let i = 0; i < 300 && (await world.get('/healthz')).body.status !== 'ok'; i++) await sleep(100);
    assert.equal((await world.get('/healthz')).body.status, 'ok');
    expectStatus(await world.call('POST', '/api/tick', { admin: world.keys.admin }), 200);
    assert.equal((await world.get('/api/world')).body.day, 3);
    stop = true;
    await Promise.all(load);
    assert.ok(answers.every((s) => s === 200 || s === 201), `every agent request was served: ${[...new Set(answers)].join(', ')}; ${refusals.slice(0, 3).join('; ')}`);

    await relayCaughtUp(world, 120_000);
    const events = await allEvents(world);
    const records = await readTopic([brokers], historyTopicOf(world), (rs) => new Set(rs.map((r) => r.value.id)).size >= events.length, 120_000);
    const byId = new Map<number, unknown>();
    for (const r of records) {
      if (byId.has(r.value.id)) assert.deepEqual(r.value, byId.get(r.value.id), `event ${r.value.id} twice, with the same content`);
      byId.set(r.value.id, r.value);
    }
    for (const e of events) assert.deepEqual(byId.get(e.id), { schema: 1, ...e }, `event ${e.id} reached the topic`);
    assert.equal(byId.size, events.length);
  });
});

describe('a consumer that Kafka gave up on while the broker is away', function () {
  this.timeout(300_000);
  let bus: KafkaBus | null = null;
  after(async function () {
    this.timeout(120_000);
    sinon.restore();
    await bus?.close();
    await broker('down').catch(() => undefined);
  });

  it('is started again, attempt after attempt, until the broker is back, and then gets what was published', async () => {
    const brokers = parseSettings(await broker('up')).KAFKA_BROKERS!;
    const topic = `outage-consumer-${Date.now()}`;
    const lines: string[] = [];
    bus = new KafkaBus({ brokers: [brokers], clientId: topic, groupPrefix: topic, topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], log: (l) => lines.push(l) });
    // Fault injection: when kafkajs will not restart a consumer itself, it stops it and
    // reports a crash with restart false; here the consumer is stopped and the listener the
    // bus gave it is called that way.
    const crashListeners: Array<(event: unknown) => void> = [];
    type Consumer = { on: (e: string, l: (event: unknown) => void) => unknown; events: { CRASH: string }; stop: () => Promise<void> };
    const consumers: Consumer[] = [];
    const kafka = (bus as unknown as { kafka: { consumer: (c: unknown) => Consumer } }).kafka;
    const consumerOf = kafka.consumer.bind(kafka);
    sinon.stub(kafka, 'consumer').callsFake((config: unknown) => {
      const consumer = consumerOf(config);
      consumers.push(consumer);
      const on = consumer.on.bind(consumer);
      consumer.on = (event: string, listener: (event: unknown) => void) => {
        if (event === consumer.events.CRASH) crashListeners.push(listener);
        return on(event, listener);
      };
      return consumer;
    });
    await bus.whenConnected();
    const got: number[] = [];
    await bus.subscribe<{ n: number }>(topic, async (m) => { got.push(m.n); });
    await bus.publish(topic, { n: 1 });
    for (let i = 0; i < 300 && got.length < 1; i++) await sleep(100);
    assert.deepEqual(got, [1], 'the consumer runs');

    await consumers[0].stop();
    await broker('down');
    crashListeners[0]({ payload: { error: new Error('injected: the group coordinator went away'), restart: false } });
    // Long enough for the first attempts to start it again to fail on the absent broker.
    for (let i = 0; i < 600 && !lines.some((l) => /could not start again/.test(l)); i++) await sleep(100);
    assert.ok(lines.some((l) => /could not start again/.test(l)), lines.join('\n'));

    await broker('up');
    for (let i = 0; i < 300; i++) {
      try { await bus.publish(topic, { n: 2 }); break; } catch { await sleep(200); }
    }
    for (let i = 0; i < 600 && !got.includes(2); i++) await sleep(100);
    assert.ok(got.includes(2), `the consumer runs again and gets what was published once the broker is back: ${got}; ${lines.join(' | ')}`);
    assert.ok(lines.some((l) => /runs again/.test(l)), lines.join('\n'));
  });
});
