// A node of many: the entities port spread over several processes by Kafka.
//
// Every entity belongs to one of `shards` shards (shards.ts); shard n is partition n of the
// command topic. All nodes are one consumer group on that topic, so Kafka's partition
// assignment says which node hosts which shard, and moves shards when nodes join, leave or
// die. A node hosts a shard once it holds the shard's lease (shard-leases.ts: the fence
// that keeps a deposed node from writing); it then serves the shard's actors in its
// region, recovering each from the store when first asked.
//
// An ask for an entity this node hosts stays in this process. Any other goes to the
// command topic, to the shard's partition, with this node's reply topic and a deadline;
// the hosting node hands it to the actor and sends the answer back. A command that
// reaches a node which no longer hosts its shard is answered "moved" and sent again.
import crypto from 'crypto';
import { Kafka, logLevel, type Admin, type Consumer, type LogEntry, type Producer } from 'kafkajs';
import { isNotServed, type Region } from '../../actors/region';
import type { Result } from '../../actors/result';
import { immediateSockets } from '../bus/kafka-socket';
import { Latencies } from './latencies';
import { ensureTopics, whileTopicsSettle } from '../bus/kafka-topics';
import { NO_METRICS, secondsSince, type Metrics } from '../../actors/ports/metrics';
import { shardOf } from './shards';
import type { ShardLeases } from './shard-leases';

export interface ClusterOptions {
  brokers: string[];
  clientId: string;
  /** This node's id (NODE_ID). */
  node: string;
  shards: number;
  /** The command topic (one partition per shard). */
  commandTopic: string;
  replicationFactor: number;
  log?: (line: string) => void;
  /** Kafka's session timeout for the node group: how long a silent node keeps its shards (default 6 s, the broker's least). */
  sessionTimeoutMs?: number;
  /** Where the asks sent to other nodes are reported (operators' metrics); nowhere by default. */
  metrics?: Metrics;
}

const MOVED = { moved: true } as const;
type Routed = { kind: string; id: string | number; command: unknown; commandId?: string; deadline: number; reply: { topic: string; correlation: string } | null };
type Options = { commandId?: string };
/** An answer; `ms` is how long the serving node spent on it (so the asker can tell the hop from the work). */
type Reply = { correlation: string; result?: Result<unknown>; moved?: true; ms?: number };

/**
 * Kinds whose asks a shard's handover does not wait for. The clock answers a day once every
 * shard has settled it, its own shard's next host included: a handover held until that
 * answer held itself up (10 s, the in-flight limit). Its one write, the new day, is fenced
 * by the lease like any other, and its wait only reads.
 */
const OUTLASTS_HANDOVER = new Set(['clock']);

const timedOut = (what: string): Result<never> => ({ ok: false, refusal: { status: 503, detail: `the world could not finish this action in time (${what}); read the current state before trying again` } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How often the offsets of the answers read are committed (only a restart reads them). */
const REPLY_COMMIT_MS = 1_000;

export interface ShardEvents {
  /** This node now hosts the shard (its lease is held). */
  served?(shard: number): void;
  /** This node no longer hosts the shard (its actors have stopped). */
  revoked?(shard: number): void;
}

export class ClusterNode {
  private readonly kafka: Kafka;
  private readonly admin: Admin;
  private readonly producer: Producer;
  private readonly members: Consumer;
  private readonly replies: Consumer;
  private replyCommits: NodeJS.Timeout | undefined;
  /** Per partition of the reply topic, the offset after the last answer read (not yet committed). */
  private readonly repliesRead = new Map<number, string>();
  readonly replyTopic: string;
  private readonly log: (line: string) => void;
  /** Shards Kafka assigned to this node. */
  private assigned = new Set<number>();
  /** Shards this node hosts (lease held). */
  private readonly serving = new Set<number>();
  private readonly waiters = new Map<number, Array<() => void>>();
  private readonly inFlight = new Map<number, number>();
  private readonly pending = new Map<string, { resolve: (r: Reply) => void; timer: NodeJS.Timeout }>();
  private readonly listeners: ShardEvents[] = [];
  private joined = false;
  private closed = false;
  /** Round trips of cross-node asks, and the part of each spent travelling (the round trip less the serving node's own time). */
  private readonly latencies = new Latencies();
  private readonly hops = new Latencies();
  private readonly counts = { sent: 0, failed: 0, moved: 0, served: 0 };
  private readonly metrics: Metrics;

  constructor(private readonly opts: ClusterOptions, private readonly region: Region, private readonly leases: ShardLeases) {
    this.log = opts.log ?? (() => undefined);
    this.metrics = opts.metrics ?? NO_METRICS;
    const seen = new Set<string>();
    const logCreator = () => ({ level, log }: LogEntry) => {
      if (level > logLevel.ERROR || !log?.message) return;
      const line = `kafka (cluster): ${log.message}`;
      if (!seen.has(line)) { seen.add(line); if (seen.size > 100) seen.clear(); this.log(line); }
    };
    this.kafka = new Kafka({ clientId: `${opts.clientId}.${opts.node}`, brokers: opts.brokers, logLevel: logLevel.ERROR, logCreator, connectionTimeout: 3_000, requestTimeout: 10_000, socketFactory: immediateSockets });
    this.admin = this.kafka.admin();
    this.producer = this.kafka.producer({ allowAutoTopicCreation: false });
    this.replyTopic = `${opts.commandTopic}.replies.${opts.node}`;
    const session = opts.sessionTimeoutMs ?? 6_000;
    this.members = this.kafka.consumer({
      groupId: `${opts.clientId}.nodes`, sessionTimeout: session, // A short heartbeat: the others notice a node joining or leaving within a third of a second.
      heartbeatInterval: Math.max(200, Math.floor(session / 20)),
      rebalanceTimeout: 10_000, maxWaitTimeInMs: 250, allowAutoTopicCreation: false,
    });
    this.replies = this.kafka.consumer({ groupId: `${opts.clientId}.${opts.node}.replies`, maxWaitTimeInMs: 250, sessionTimeout: 10_000, allowAutoTopicCreation: false });
  }

  on(listener: ShardEvents): void {
    this.listeners.push(listener);
  }

  shardOf(kind: string, id: string | number): number {
    return shardOf(kind, id, this.opts.shards);
  }

  /** Whether this node hosts the shard now (its lease is valid). */
  hosts(shard: number): boolean {
    return this.serving.has(shard) && this.leases.lease(shard) !== null;
  }

  /** Joins the node group and starts serving; resolves once Kafka has given this node its first assignment. */
  async start(): Promise<void> {
    const { commandTopic, shards, replicationFactor } = this.opts;
    await this.admin.connect();
    await ensureTopics(this.admin, [
      { topic: commandTopic, numPartitions: shards, replicationFactor },
      { topic: this.replyTopic, numPartitions: 1, replicationFactor },
    ]);
    const meta = await this.admin.fetchTopicMetadata({ topics: [commandTopic] });
    const partitions = meta.topics[0]?.partitions.length ?? 0;
    if (partitions !== shards) {
      throw new Error(`the command topic ${commandTopic} has ${partitions} partitions but WORLD_SHARDS is ${shards}: every node of a world must use the number of shards the world was created with`);
    }
    await this.producer.connect();

    await this.replies.connect();
    // From the beginning when the group has no offset yet: "latest" would be read a moment
    // after the group is joined, and an answer sent in that moment would be lost.
    await whileTopicsSettle(() => this.replies.subscribe({ topic: this.replyTopic, fromBeginning: true }));
    let repliesJoined!: () => void;
    const repliesReady = new Promise<void>((r) => { repliesJoined = r; });
    this.replies.on(this.replies.events.GROUP_JOIN, () => repliesJoined());
    // Answers are only for this process, now. kafkajs commits after every batch it hands
    // over and fetches again only after that round trip, which an answer arriving meanwhile
    // would wait for; so the offsets are committed beside the fetches, once a second, only
    // so that a restart reads from about where this process stopped, not the whole topic.
    await this.replies.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        this.repliesRead.set(partition, String(BigInt(message.offset) + 1n));
        const reply = JSON.parse(String(message.value)) as Reply;
        const waiting = this.pending.get(reply.correlation);
        if (waiting) { this.pending.delete(reply.correlation); clearTimeout(waiting.timer); waiting.resolve(reply); }
      },
    });
    this.replyCommits = setInterval(() => { void this.commitReplies(); }, REPLY_COMMIT_MS);
    this.replyCommits.unref();

    await this.members.connect();
    // A shard whose partition the group has no offset for yet (a new world) is read from its
    // beginning: with "latest", a command sent before its new host first read the partition
    // was lost, and its asker waited out its deadline (30 s). Older commands are passed over
    // by their deadline; a command id is applied once.
    await whileTopicsSettle(() => this.members.subscribe({ topic: commandTopic, fromBeginning: true }));
    let firstJoin!: () => void;
    const joined = new Promise<void>((r) => { firstJoin = r; });
    this.members.on(this.members.events.GROUP_JOIN, ({ payload }) => {
      const mine = new Set<number>((payload.memberAssignment[commandTopic] ?? []) as number[]);
      this.assign(mine);
      this.joined = true;
      firstJoin();
    });
    this.members.on(this.members.events.CRASH, ({ payload }) => {
      this.log(`cluster: the node group consumer crashed (${payload.error?.message}); ${payload.restart ? 'it restarts' : 'it does not restart'}`);
    });
    await this.members.run({
      partitionsConsumedConcurrently: 1,
      // kafkajs commits after every batch it hands over, whatever the interval says, and fetches
      // again only after that round trip: a hop pays for it, but a command's offset is committed
      // before its actor acts, so a node restarted after a crash does not serve it again
      // (docs/operations.md, "A command read is committed at once").
      autoCommitInterval: 1_000,
      eachMessage: async ({ partition, message }) => {
        // Never awaited here: an actor may ask another of the same shard through Kafka.
        void this.serveRouted(partition, JSON.parse(String(message.value)) as Routed);
      },
    });
    await Promise.all([joined, repliesReady]);
  }

  /** Resolves once this node hosts every shard Kafka assigned it (or after `timeoutMs`): start-up work then sees its shards. */
  async whenHostingAssigned(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline && [...this.assigned].some((s) => !this.hosts(s))) await sleep(20);
  }

  /** Kafka's new assignment: shards that left are let go, new ones are taken. */
  private assign(next: Set<number>): void {
    const before = this.assigned;
    this.assigned = next;
    const lost = [...before].filter((s) => !next.has(s));
    const gained = [...next].filter((s) => !before.has(s));
    if (lost.length || gained.length) this.log(`cluster: node ${this.opts.node} hosts shards [${[...next].sort((a, b) => a - b).join(',')}]${lost.length ? `; lets go of [${lost.join(',')}]` : ''}`);
    for (const s of lost) void this.letGo(s);
    for (const s of gained) void this.take(s);
  }

  /** Commits the offsets of the answers read since the last commit (those of a failed commit are tried again with the next). */
  private async commitReplies(): Promise<void> {
    const offsets = [...this.repliesRead].map(([partition, offset]) => ({ topic: this.replyTopic, partition, offset }));
    this.repliesRead.clear();
    if (offsets.length === 0) return;
    await this.replies.commitOffsets(offsets).catch(() => {
      for (const o of offsets) if (!this.repliesRead.has(o.partition)) this.repliesRead.set(o.partition, o.offset);
    });
  }

  private async take(shard: number): Promise<void> {
    try {
      const lease = await this.leases.acquire(shard, () => this.assigned.has(shard) && !this.closed);
      if (!lease) return;
      this.serving.add(shard);
      for (const wake of this.waiters.get(shard) ?? []) wake();
      this.waiters.delete(shard);
      for (const l of this.listeners) l.served?.(shard);
    } catch (e) {
      this.log(`cluster: shard ${shard} could not be taken (${(e as Error)?.message ?? e}); trying again`);
      await sleep(1_000);
      if (this.assigned.has(shard) && !this.closed && !this.serving.has(shard)) void this.take(shard);
    }
  }

  /** Stops serving a shard: what is in flight finishes (up to 10 s), its actors stop, its lease is released. */
  private async letGo(shard: number): Promise<void> {
    const wasServing = this.serving.delete(shard);
    for (const end = Date.now() + 10_000; (this.inFlight.get(shard) ?? 0) > 0 && Date.now() < end;) await sleep(20);
    this.region.stopWhere((kind, id) => this.shardOf(kind, id) === shard);
    await this.leases.release(shard);
    if (wasServing) for (const l of this.listeners) l.revoked?.(shard);
  }

  /** A lease found taken by another node: stop hosting the shard at once, and take it again if Kafka still gives it. */
  leaseLost(shard: number): void {
    if (!this.serving.delete(shard)) return;
    this.region.stopWhere((kind, id) => this.shardOf(kind, id) === shard);
    for (const l of this.listeners) l.revoked?.(shard);
    if (this.assigned.has(shard) && !this.closed) void this.take(shard);
  }

  /** Waits until this node hosts the shard; false if it is not (or no longer) assigned here, or the deadline passed. */
  private async whenHosted(shard: number, deadline: number): Promise<boolean> {
    while (!this.hosts(shard)) {
      if (!this.assigned.has(shard) || this.closed || Date.now() >= deadline) return false;
      await new Promise<void>((resolve) => {
        const list = this.waiters.get(shard) ?? [];
        const timer = setTimeout(resolve, Math.min(250, Math.max(1, deadline - Date.now())));
        list.push(() => { clearTimeout(timer); resolve(); });
        this.waiters.set(shard, list);
      });
    }
    return true;
  }

  private async local<T>(shard: number, kind: string, id: string | number, command: unknown, timeoutMs: number, options?: Options): Promise<Result<T>> {
    if (OUTLASTS_HANDOVER.has(kind)) return this.region.ask<T, any>(kind as any, id, command as any, timeoutMs, options);
    this.inFlight.set(shard, (this.inFlight.get(shard) ?? 0) + 1);
    try {
      return await this.region.ask<T, any>(kind as any, id, command as any, timeoutMs, options);
    } finally {
      this.inFlight.set(shard, (this.inFlight.get(shard) ?? 1) - 1);
    }
  }

  private async serveRouted(shard: number, m: Routed): Promise<void> {
    const received = performance.now();
    if (Date.now() >= m.deadline) return; // the asker has given up
    if (!(await this.whenHosted(shard, m.deadline))) {
      if (m.reply && (!this.assigned.has(shard) || this.closed)) await this.answer(m, { correlation: m.reply.correlation, moved: true });
      return;
    }
    this.counts.served++;
    if (!m.reply) {
      this.region.tell(m.kind as any, m.id, m.command as any, { commandId: m.commandId });
      return;
    }
    const result = await this.local(shard, m.kind, m.id, m.command, Math.max(1, m.deadline - Date.now()), { commandId: m.commandId });
    // Let go of before its actor took it up: the asker sends it on to the shard's next host.
    if (isNotServed(result)) { await this.answer(m, { correlation: m.reply.correlation, moved: true }); return; }
    await this.answer(m, { correlation: m.reply.correlation, result, ms: performance.now() - received });
  }

  private async answer(m: Routed, reply: Reply): Promise<void> {
    await this.producer.send({ topic: m.reply!.topic, acks: 1, messages: [{ value: JSON.stringify(reply) }] })
      .catch((e: unknown) => this.log(`cluster: an answer to ${m.kind}:${m.id} could not be sent: ${(e as Error)?.message ?? e}`));
  }

  private async remote<T>(shard: number, kind: string, id: string | number, command: unknown, deadline: number, options?: Options): Promise<Result<T> | typeof MOVED> {
    const correlation = crypto.randomUUID();
    const started = performance.now();
    const replied = new Promise<Reply | null>((resolve) => {
      const timer = setTimeout(() => { this.pending.delete(correlation); resolve(null); }, Math.max(1, deadline - Date.now()));
      this.pending.set(correlation, { resolve, timer });
    });
    // Every command that travels has an id: one Kafka delivers twice (a rebalance before its
    // offset was committed) is applied once, and answered as the first time.
    const routed: Routed = { kind, id, command, commandId: options?.commandId ?? `routed:${correlation}`, deadline, reply: { topic: this.replyTopic, correlation } };
    this.counts.sent++;
    try {
      await this.producer.send({ topic: this.opts.commandTopic, acks: 1, messages: [{ partition: shard, key: `${kind}:${id}`, value: JSON.stringify(routed) }] });
    } catch (e) {
      const waiting = this.pending.get(correlation);
      if (waiting) { clearTimeout(waiting.timer); this.pending.delete(correlation); }
      this.counts.failed++;
      this.metrics.crossNodeAsk('failed', secondsSince(started));
      return { ok: false, refusal: { status: 503, detail: `the world could not reach the node that hosts this ${kind}: ${(e as Error)?.message ?? e}; try again` } };
    }
    const reply = await replied;
    if (!reply) { this.counts.failed++; this.metrics.crossNodeAsk('failed', secondsSince(started)); return timedOut(`${kind} ${id} on another node`); }
    if (reply.moved) { this.counts.moved++; this.metrics.crossNodeAsk('moved', secondsSince(started)); return MOVED; }
    const roundTrip = performance.now() - started;
    this.latencies.add(roundTrip);
    this.hops.add(Math.max(0, roundTrip - (reply.ms ?? 0)));
    this.metrics.crossNodeAsk('ok', secondsSince(started));
    return reply.result as Result<T>;
  }

  /** The entities port on many nodes: a command id (CommandOptions) travels with the command, so the actor applies it once wherever it runs. */
  ask<T = unknown, K extends string = never>(kind: K, id: string | number, command: unknown, timeoutMs = 30_000, options?: Options): Promise<Result<T>> {
    return this.route<T>(kind, id, command, Date.now() + timeoutMs, options);
  }

  private async route<T>(kind: string, id: string | number, command: unknown, deadline: number, options?: Options): Promise<Result<T>> {
    const shard = this.shardOf(kind, id);
    for (;;) {
      if (this.closed) return { ok: false, refusal: { status: 503, detail: 'this node is stopping; try again on another' } };
      if (this.hosts(shard)) {
        const r = await this.local<T>(shard, kind, id, command, Math.max(1, deadline - Date.now()), options);
        // The shard was let go before its actor took the command up: it goes where the shard is now.
        if (!isNotServed(r) || Date.now() >= deadline) return r;
        continue;
      }
      if (this.assigned.has(shard)) {
        if (!(await this.whenHosted(shard, deadline)) && Date.now() >= deadline) return timedOut(`${kind} ${id}: its shard is being taken over`);
        continue;
      }
      const r = await this.remote<T>(shard, kind, id, command, deadline, options);
      if (!('moved' in r)) return r;
      if (Date.now() >= deadline) return timedOut(`${kind} ${id}: its shard is moving`);
      await sleep(50);
    }
  }

  tell(kind: string, id: string | number, command: unknown, options?: Options): void {
    const shard = this.shardOf(kind, id);
    if (this.hosts(shard)) { this.region.tell(kind as any, id, command as any, options); return; }
    const routed: Routed = { kind, id, command, commandId: options?.commandId, deadline: Date.now() + 30_000, reply: null };
    void this.producer.send({ topic: this.opts.commandTopic, acks: 1, messages: [{ partition: shard, key: `${kind}:${id}`, value: JSON.stringify(routed) }] })
      .catch((e: unknown) => this.log(`cluster: a tell to ${kind}:${id} was lost: ${(e as Error)?.message ?? e}`));
  }

  /** What /healthz shows of this node. */
  status(): Record<string, unknown> {
    return {
      id: this.opts.node,
      joined: this.joined,
      shards: [...this.serving].filter((s) => this.hosts(s)).sort((a, b) => a - b),
      taking: [...this.assigned].filter((s) => !this.serving.has(s)).sort((a, b) => a - b),
      cross_node_asks: {
        sent: this.counts.sent, failed: this.counts.failed, moved: this.counts.moved, served_for_others: this.counts.served,
        p50_ms: this.latencies.percentile(50), p99_ms: this.latencies.percentile(99),
        hop_p50_ms: this.hops.percentile(50), hop_p99_ms: this.hops.percentile(99),
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Leaving the group hands the shards over at once; the leases are released after the actors stop.
    await this.members.disconnect().catch(() => undefined);
    await Promise.all([...this.serving].map((s) => this.letGo(s)));
    for (const [, w] of this.pending) { clearTimeout(w.timer); w.resolve({ correlation: '', result: timedOut('the node stopped') }); }
    this.pending.clear();
    clearInterval(this.replyCommits);
    await this.commitReplies();
    await this.replies.disconnect().catch(() => undefined);
    await this.producer.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }
}
