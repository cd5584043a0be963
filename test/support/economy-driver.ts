// Drives a real world over HTTP with random actions by several agents and checks the
// world's accounting after every step (docs/accounting.md):
// - the world's gold (every treasury plus the organizations' gold quests hold in trust)
//   and goods (every holding) changed by exactly the named sources and sinks in the
//   ledgers of the history events the step wrote;
// - summing the ledger lines of all history events gives every organization's treasury
//   and holdings exactly, and every organization a line names is in organization_ids;
// - a refused action changed nothing and wrote no history; nothing answers 5xx.
// Used by test/http/accounting.test.ts (fixed seed, small) and bench/accounting.ts (large).
import assert from 'assert/strict';
import fc from 'fast-check';
import type { Answer, TestWorld } from './world';

export const ACTION_KINDS = [
  'tick', 'found', 'dissolve', 'buy', 'sell', 'travel', 'hire-workers', 'release-workers', 'project', 'cancel-project',
  'post-quest', 'sponsor', 'accept-quest', 'cancel-quest', 'hire', 'release', 'form-party', 'add-member', 'dispatch', 'complete',
  'propose-contract', 'accept-contract', 'reject-contract', 'fulfil-contract', 'message', 'propose-alliance', 'accept-alliance',
  'end-alliance', 'world-event', 'expedition',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** An abstract action: what to do, who does it, and numbers the driver reads as choices among what exists. */
export interface Action { kind: ActionKind; actor: number; a: number; b: number; c: number; flag: boolean }

const WEIGHTS: Partial<Record<ActionKind, number>> = {
  tick: 6, buy: 5, sell: 4, project: 4, 'post-quest': 4, hire: 3, 'add-member': 4, dispatch: 5, complete: 5, 'propose-contract': 3, 'cancel-project': 2,
  'fulfil-contract': 4, 'accept-contract': 4, sponsor: 3, expedition: 3, 'accept-quest': 2, 'hire-workers': 2, found: 2, 'form-party': 2, message: 2,
};

export function actionArbitrary(agents: number): fc.Arbitrary<Action> {
  return fc.record({
    kind: fc.oneof(...ACTION_KINDS.map((k) => ({ arbitrary: fc.constant(k), weight: WEIGHTS[k] ?? 1 }))),
    actor: fc.integer({ min: 0, max: agents - 1 }),
    a: fc.nat(999), b: fc.nat(999), c: fc.nat(999), flag: fc.boolean(),
  });
}

interface Line { organization_id: number; flow: string; gold?: number; goods?: Record<string, number> }
interface HistoryEvent { id: number; day: number; category: string; organization_ids: number[]; summary: string; data: { ledger?: Line[] } & Record<string, unknown> }
interface Org { id: number; status: string; treasury: number; holdings: Record<string, number>; location_id: string; travel: unknown; workers: number; agent_id: number | null }
interface Quest { id: number; status: string; reward: number; world_funded: boolean; minimum_strength: number; minimum_reputation: number; requester_id: number; accepted_organization_id: number | null; party_id: number | null; location_id: string; sponsors: Array<{ organization_id: number; amount: number }> }

interface World {
  orgs: Map<number, Org>;
  quests: Quest[];
  adventurers: Array<{ id: number; status: string; organization_id: number | null; party_id: number | null; injured_until: number | null }>;
  contracts: Array<{ id: number; status: string; proposer_id: number; counterparty_id: number }>;
  alliances: Array<{ id: number; status: string; proposer_id: number; counterparty_id: number }>;
  parties: Array<{ id: number; status: string; organization_id: number; members: number[] }>;
  projects: Array<{ id: number; status: string; owner_id: number }>;
  gold: number;
  goods: Record<string, number>;
}

const EXTERNAL = new Set(['founding_grant', 'world_reward', 'project_refund', 'establishment_income', 'production', 'market', 'upkeep', 'workers', 'hiring', 'message', 'project_budget', 'estate_forfeited']);
const INTERNAL = new Set(['quest_escrow', 'contract']);
const RESOURCES = ['food', 'timber', 'ore'];
const KINDS = ['merchant company', 'crafters guild', 'adventurers band', 'temple order', 'wandering troupe'];
const ANSWERS = [200, 201, 403, 404, 409];

export interface DriverReport { steps: number; answers: Record<string, number>; events: number; flows: Record<string, number>; day: number }

export class EconomyDriver {
  readonly agents: Array<{ id: number; key: string; org: number | null }> = [];
  private locations: string[] = [];
  private lastEventId = 0;
  /** Every organization's treasury and holdings as its ledger lines say. */
  private readonly replay = new Map<number, { gold: number; goods: Record<string, number> }>();
  private readonly orgIds = new Set<number>();
  private world!: World;
  private readonly answers: Record<string, number> = {};
  private readonly flows: Record<string, number> = {};
  private events = 0;
  private steps = 0;
  private readonly log: string[] = [];

  constructor(private readonly w: TestWorld, private readonly agentCount: number) {}

  async start(): Promise<void> {
    this.locations = (await this.ok<Array<{ id: string }>>(this.w.get('/api/locations'), 'locations')).map((l) => l.id);
    for (let i = 0; i < this.agentCount; i++) {
      const agent = await this.w.register(`Ledger agent ${i}`);
      this.agents.push({ id: agent.id, key: agent.key, org: null });
      const r = await this.w.post('/api/organizations', { name: `Ledger House ${i}`, kind: KINDS[i % KINDS.length], location_id: 'emberfall' }, agent.key);
      assert.equal(r.status, 201, r.text);
      this.agents[i].org = r.body.id;
    }
    for (const o of await this.ok<Org[]>(this.w.get('/api/organizations'), 'organizations')) this.orgIds.add(o.id);
    await this.readNewEvents();
    this.world = await this.snapshot();
    this.checkReplay(this.world);
  }

  private async ok<T>(p: Promise<Answer<T>>, what: string): Promise<T> {
    const r = await p;
    assert.equal(r.status, 200, `${what}: ${r.status} ${r.text}`);
    return r.body;
  }

  /** History events written since the last call, oldest first; folds their ledgers into the replay. */
  private async readNewEvents(): Promise<HistoryEvent[]> {
    const fresh: HistoryEvent[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await this.ok<HistoryEvent[]>(this.w.get(`/api/events?limit=100${before ? `&before_id=${before}` : ''}`), 'events');
      const newer = page.filter((e) => e.id > this.lastEventId);
      fresh.push(...newer);
      if (page.length < 100 || newer.length < page.length) break;
      before = page[page.length - 1].id;
    }
    fresh.sort((x, y) => x.id - y.id);
    for (const e of fresh) {
      this.events += 1;
      for (const l of e.data?.ledger ?? []) {
        assert.ok(EXTERNAL.has(l.flow) || INTERNAL.has(l.flow), `event ${e.id} names an unknown flow ${l.flow}`);
        assert.ok(e.organization_ids.includes(l.organization_id), `event ${e.id} (${e.summary}) moves organization ${l.organization_id}'s gold or goods but does not name it: ${JSON.stringify(e)}`);
        this.orgIds.add(l.organization_id);
        const r = this.replay.get(l.organization_id) ?? { gold: 0, goods: {} };
        r.gold += l.gold ?? 0;
        for (const [res, q] of Object.entries(l.goods ?? {})) r.goods[res] = (r.goods[res] ?? 0) + q;
        this.replay.set(l.organization_id, r);
        this.flows[l.flow] = (this.flows[l.flow] ?? 0) + 1;
      }
      for (const id of e.organization_ids) this.orgIds.add(id);
    }
    if (fresh.length) this.lastEventId = fresh[fresh.length - 1].id;
    return fresh;
  }

  private async snapshot(): Promise<World> {
    const orgs = new Map<number, Org>();
    for (const id of [...this.orgIds].sort((x, y) => x - y)) {
      const o = await this.ok<Org>(this.w.get(`/api/organizations/${id}`), `organization ${id}`);
      assert.ok(Number.isInteger(o.treasury) && o.treasury >= 0, `organization ${id}: treasury ${o.treasury}`);
      if (o.status !== 'active') {
        assert.equal(o.treasury, 0, `ended organization ${id} keeps no gold`);
        assert.deepEqual(o.holdings, {}, `ended organization ${id} keeps no goods`);
        assert.equal(o.workers, 0, `ended organization ${id} keeps no workers`);
      }
      orgs.set(id, o);
    }
    const quests = await this.ok<Quest[]>(this.w.get('/api/quests'), 'quests');
    let gold = 0;
    const goods: Record<string, number> = {};
    for (const o of orgs.values()) {
      gold += o.treasury;
      for (const [r, q] of Object.entries(o.holdings ?? {})) goods[r] = (goods[r] ?? 0) + q;
    }
    // The organizations' gold quests hold in trust: the whole reward, less the world's share of a world-funded one.
    for (const q of quests) {
      if (q.status !== 'open' && q.status !== 'accepted') continue;
      gold += q.world_funded ? q.sponsors.reduce((n, s) => n + s.amount, 0) : q.reward;
    }
    return {
      orgs, quests, gold, goods,
      adventurers: await this.ok(this.w.get('/api/adventurers'), 'adventurers'),
      contracts: await this.ok(this.w.get('/api/contracts'), 'contracts'),
      alliances: await this.ok(this.w.get('/api/alliances'), 'alliances'),
      parties: await this.ok(this.w.get('/api/parties'), 'parties'),
      projects: await this.ok(this.w.get('/api/projects'), 'projects'),
    };
  }

  private checkReplay(world: World): void {
    for (const o of world.orgs.values()) {
      const r = this.replay.get(o.id) ?? { gold: 0, goods: {} };
      assert.equal(r.gold, o.treasury, `replaying the history of organization ${o.id} gives ${r.gold} gold, but its treasury is ${o.treasury}\n${this.log.slice(-8).join('\n')}`);
      const goods = Object.fromEntries(Object.entries(r.goods).filter(([, q]) => q !== 0));
      assert.deepEqual(goods, o.holdings ?? {}, `replaying the history of organization ${o.id} gives holdings ${JSON.stringify(goods)}\n${this.log.slice(-8).join('\n')}`);
    }
  }

  /** Performs one action and checks the accounting. */
  async step(action: Action): Promise<void> {
    const before = this.world;
    const r = action.kind === 'expedition' ? await this.expedition(action, before) : await this.perform(action, before);
    this.steps += 1;
    const key = `${action.kind} ${r.status}`;
    this.answers[key] = (this.answers[key] ?? 0) + 1;
    this.log.push(`${JSON.stringify(action)} -> ${r.status}${r.status >= 400 ? ` ${typeof r.body?.detail === 'string' ? r.body.detail : r.text}` : ''}`);
    const trail = () => this.log.slice(-8).join('\n');
    assert.ok(ANSWERS.includes(r.status), `unexpected answer ${r.status} ${r.text}\n${trail()}`);
    const fresh = await this.readNewEvents();
    const after = await this.snapshot();
    // (An expedition is several requests; each refused one changed nothing, but the others did.)
    if (r.status >= 400 && action.kind !== 'expedition') {
      assert.equal(fresh.length, 0, `a refused action wrote history: ${JSON.stringify(fresh)}\n${trail()}`);
      assert.equal(after.gold, before.gold, `a refused action moved gold\n${trail()}`);
      assert.deepEqual(after.goods, before.goods, `a refused action moved goods\n${trail()}`);
    }
    const lines = fresh.flatMap((e) => e.data?.ledger ?? []).filter((l) => EXTERNAL.has(l.flow));
    const named = lines.reduce((n, l) => n + (l.gold ?? 0), 0);
    assert.equal(after.gold - before.gold, named, `the world's gold changed by ${after.gold - before.gold}, but the named flows say ${named}\n${trail()}`);
    for (const res of new Set([...Object.keys(before.goods), ...Object.keys(after.goods)])) {
      const flow = lines.reduce((n, l) => n + (l.goods?.[res] ?? 0), 0);
      assert.equal((after.goods[res] ?? 0) - (before.goods[res] ?? 0), flow, `the world's ${res} changed by ${(after.goods[res] ?? 0) - (before.goods[res] ?? 0)}, but the named flows say ${flow}\n${trail()}`);
    }
    this.checkReplay(after);
    this.world = after;
  }

  report(): DriverReport {
    return { steps: this.steps, answers: { ...this.answers }, events: this.events, flows: { ...this.flows }, day: 0 };
  }

  /**
   * Several requests that take a party out on a quest where the actor's organization
   * stands: hire an adventurer and form a party if it has none, find an open quest there
   * (another agent posts one if there is none), send the party and complete the quest.
   * Answers with the first refusal, or the completion.
   */
  private async expedition(x: Action, world: World): Promise<Answer> {
    let s = world;
    const me = this.agents[x.actor];
    const post = (url: string, body?: unknown, key = me.key) => this.w.post(url, body, key);
    if (me.org === null || s.orgs.get(me.org)?.status !== 'active') {
      // An agent whose organization has ended founds another first.
      const founded = await post('/api/organizations', { name: `Ledger House ${x.actor}-${x.a}`, kind: KINDS[x.a % KINDS.length], location_id: 'emberfall' });
      if (founded.status !== 201) return founded;
      me.org = founded.body.id;
      this.orgIds.add(founded.body.id);
      s = { ...s, orgs: new Map(s.orgs).set(founded.body.id, founded.body) };
    }
    const org = me.org!;
    const mine = s.orgs.get(org)!;
    const day = (await this.w.get('/api/world')).body.day as number;
    let member = s.adventurers.find((a) => a.organization_id === org && a.party_id === null && (a.injured_until === null || a.injured_until <= day));
    let party = s.parties.find((p) => p.organization_id === org && p.status === 'formed' && p.members.length > 0);
    if (!party) {
      if (!member) {
        const free = s.adventurers.find((a) => a.status === 'available' && (a.injured_until === null || a.injured_until <= day));
        if (!free) return post('/api/adventurers/hire', { organization_id: org, adventurer_id: 99999 });
        const hired = await post('/api/adventurers/hire', { organization_id: org, adventurer_id: free.id });
        if (hired.status !== 200) return hired;
        member = { ...free, organization_id: org };
      }
      const formed = await post('/api/parties', { organization_id: org, name: `Expedition ${x.a}` });
      if (formed.status !== 201) return formed;
      const joined = await post(`/api/parties/${formed.body.id}/members`, { adventurer_id: member.id });
      if (joined.status !== 200) return joined;
      party = { id: formed.body.id, status: 'formed', organization_id: org, members: [member.id] };
    }
    // A quest one adventurer can take on: no strength or reputation asked for.
    let quest = s.quests.find((q) => q.status === 'open' && q.requester_id !== org && q.location_id === mine.location_id && q.minimum_strength === 0 && q.minimum_reputation <= 10);
    if (!quest) {
      const other = this.agents.find((g) => g.org !== null && g.org !== org && s.orgs.get(g.org)?.status === 'active');
      if (!other) return post('/api/quests/99999/accept', { organization_id: org });
      const posted = await post('/api/quests', {
        title: `Errand ${x.b}`, description: 'A task for the brave and the paid.', requester_id: other.org, location_id: mine.location_id, reward: 1 + (x.b % 30),
      }, other.key);
      if (posted.status !== 201) return posted;
      quest = posted.body;
    }
    const sent = await post(`/api/parties/${party.id}/dispatch`, { quest_id: quest!.id });
    if (sent.status !== 200) return sent;
    return post(`/api/quests/${quest!.id}/complete`);
  }

  private perform(x: Action, s: World): Promise<Answer> {
    const me = this.agents[x.actor];
    const key = me.key;
    const org = me.org ?? 99999;
    const mine = s.orgs.get(org);
    const pick = <T>(items: T[], n: number): T | undefined => (items.length ? items[n % items.length] : undefined);
    const others = [...s.orgs.values()].filter((o) => o.id !== org && o.status === 'active');
    // Mostly deal with other agents' organizations, which can answer; now and then with a seeded one, which cannot.
    const partners = x.c % 5 === 0 ? others : others.filter((o) => this.agents.some((g) => g.org === o.id));
    /** The key of the agent that controls an organization, if any agent does. */
    const keyOf = (id: number) => this.agents.find((g) => g.org === id)?.key ?? key;
    const post = (url: string, body?: unknown) => this.w.post(url, body, key);
    switch (x.kind) {
      case 'tick': return this.w.call('POST', '/api/tick', { admin: this.w.keys.admin });
      case 'found': {
        const r = post('/api/organizations', { name: `Ledger House ${x.actor}-${x.a}`, kind: KINDS[x.a % KINDS.length], location_id: pick(this.locations, x.b) });
        return r.then((a) => { if (a.status === 201) { me.org = a.body.id; this.orgIds.add(a.body.id); } return a; });
      }
      case 'dissolve': return post(`/api/organizations/${org}/dissolve`);
      case 'buy':
      case 'sell': {
        const resource = RESOURCES[x.a % RESOURCES.length];
        const held = mine?.holdings?.[resource] ?? 0;
        const quantity = x.kind === 'sell' && held > 0 && x.flag ? 1 + (x.b % held) : 1 + (x.b % 40);
        return post('/api/trade', { organization_id: org, resource, side: x.kind, quantity });
      }
      case 'travel': return post('/api/travel', { organization_id: org, destination_id: pick(this.locations, x.a) });
      case 'hire-workers': return post('/api/workers/hire', { organization_id: org, quantity: 1 + (x.a % 4) });
      case 'release-workers': return post('/api/workers/release', { organization_id: org, quantity: 1 + (x.a % 3) });
      case 'project': {
        const plan = x.flag;
        const quantity = x.c % 3 === 0 ? 0 : 1 + (x.b % 12);
        return post('/api/projects', {
          owner_id: org, title: `Works ${x.a}`, kind: plan ? 'production' : 'construction', description: 'Honest work for honest pay.',
          location_id: mine?.location_id ?? 'emberfall', budget: 1 + ((x.a * 7 + x.c) % 300), duration_days: 2 + (x.c % 10),
          output_resource: quantity ? RESOURCES[x.b % RESOURCES.length] : null, output_quantity: quantity, establishment_kind: x.c % 5 === 0 ? 'inn' : null,
        });
      }
      case 'cancel-project': {
        const p = pick(s.projects.filter((q) => q.owner_id === org && q.status === 'active'), x.a);
        return post(`/api/projects/${p?.id ?? 99999}/cancel`);
      }
      case 'post-quest':
        return post('/api/quests', {
          title: `Errand ${x.a}`, description: 'A task for the brave and the paid.', requester_id: org,
          // Half of them where the agents' organizations start, so that parties can be sent to them.
          location_id: x.c % 2 === 0 ? 'emberfall' : pick(this.locations, x.b), reward: 1 + (x.a % 150), deadline_days: x.flag ? 1 + (x.c % 4) : null,
        });
      case 'sponsor': {
        const q = pick(s.quests.filter((y) => y.status === 'open'), x.a);
        return post(`/api/quests/${q?.id ?? 99999}/sponsors`, { organization_id: org, amount: 1 + (x.b % 60) });
      }
      case 'accept-quest': {
        const q = pick(s.quests.filter((y) => y.status === 'open' && y.requester_id !== org), x.a);
        return post(`/api/quests/${q?.id ?? 99999}/accept`, { organization_id: org });
      }
      case 'cancel-quest': {
        const q = pick(s.quests.filter((y) => y.status === 'open' && y.requester_id === org), x.a);
        return post(`/api/quests/${q?.id ?? 99999}/cancel`);
      }
      case 'hire': {
        const a = pick(s.adventurers.filter((y) => y.status === 'available'), x.a);
        return post('/api/adventurers/hire', { organization_id: org, adventurer_id: a?.id ?? 99999 });
      }
      case 'release': {
        const a = pick(s.adventurers.filter((y) => y.organization_id === org), x.a);
        return post('/api/adventurers/release', { organization_id: org, adventurer_id: a?.id ?? 99999 });
      }
      case 'form-party': return post('/api/parties', { organization_id: org, name: `Company ${x.a}` });
      case 'add-member': {
        const p = pick(s.parties.filter((y) => y.organization_id === org), x.a);
        const a = pick(s.adventurers.filter((y) => y.organization_id === org && (x.flag || y.party_id === null)), x.b);
        return post(`/api/parties/${p?.id ?? 99999}/members`, { adventurer_id: a?.id ?? 99999 });
      }
      case 'dispatch': {
        const p = pick(s.parties.filter((y) => y.organization_id === org && y.status === 'formed' && (y.members.length > 0 || x.c % 5 === 0)), x.a);
        const here = mine?.location_id;
        const fits = s.quests.filter((y) => (y.status === 'open' && y.requester_id !== org) || (y.status === 'accepted' && y.accepted_organization_id === org && y.party_id === null));
        const q = pick(x.c % 4 !== 0 ? fits.filter((y) => y.location_id === here) : fits, x.b);
        return post(`/api/parties/${p?.id ?? 99999}/dispatch`, { quest_id: q?.id ?? 99999 });
      }
      case 'complete': {
        const q = pick(s.quests.filter((y) => y.status === 'accepted' && y.accepted_organization_id === org), x.a);
        return post(`/api/quests/${q?.id ?? 99999}/complete`);
      }
      case 'propose-contract': {
        const other = pick(partners, x.a);
        // Goods the proposer holds (now and then more than it holds), else gold alone.
        const held = Object.entries(mine?.holdings ?? {}).filter(([, q]) => q > 0);
        const good = x.flag && held.length ? held[x.c % held.length] : null;
        return post('/api/contracts', {
          proposer_id: org, counterparty_id: other?.id ?? 99999, title: `Deal ${x.b}`, terms: 'Delivered and paid in full.',
          value: 1 + (x.b % 200), resource: good ? good[0] : null, quantity: good ? 1 + (x.c % (x.c % 7 === 0 ? good[1] + 5 : good[1])) : 0,
        });
      }
      case 'accept-contract':
      case 'reject-contract': {
        // Whoever is offered a contract answers it (with a wrong key now and then).
        const c = pick(s.contracts.filter((y) => y.status === 'proposed'), x.a);
        const by = c?.counterparty_id ?? org;
        return this.w.post(`/api/contracts/${c?.id ?? 99999}/${x.kind === 'accept-contract' ? 'accept' : 'reject'}`, { organization_id: by }, x.flag ? key : keyOf(by));
      }
      case 'fulfil-contract': {
        const c = pick(s.contracts.filter((y) => y.status === 'accepted'), x.a);
        const by = c ? (x.flag ? c.proposer_id : c.counterparty_id) : org;
        return this.w.post(`/api/contracts/${c?.id ?? 99999}/fulfill`, { organization_id: by }, keyOf(by));
      }
      case 'message': {
        const to = x.flag ? pick(others, x.b)?.id ?? null : null;
        return post('/api/messages', { sender_id: org, recipient_id: to, body: `Word from the road ${x.a}`, kind: x.c % 4 === 0 ? 'rumor' : 'message' });
      }
      case 'propose-alliance': {
        const other = pick(partners, x.a);
        return post('/api/alliances', { proposer_id: org, counterparty_id: other?.id ?? 99999, terms: 'Shared roads and shared danger.' });
      }
      case 'accept-alliance': {
        const a = pick(s.alliances.filter((y) => y.status === 'proposed'), x.a);
        const by = a?.counterparty_id ?? org;
        return this.w.post(`/api/alliances/${a?.id ?? 99999}/accept`, { organization_id: by }, keyOf(by));
      }
      case 'end-alliance': {
        const a = pick(s.alliances.filter((y) => (y.counterparty_id === org || y.proposer_id === org) && y.status === 'active'), x.a);
        return post(`/api/alliances/${a?.id ?? 99999}/end`, { organization_id: org });
      }
      case 'expedition': throw new Error('an expedition is several requests (see expedition)');
      case 'world-event': {
        // The operator offers a world-funded quest (the world's gold is a named source when it is paid).
        const wild = ['whisperwood', 'ashen-moors', 'sunken-crypt', 'emberfall'];
        return this.w.call('POST', '/api/world-events', {
          admin: this.w.keys.admin,
          body: {
            title: `Bounty ${x.a}`, description: 'The crown pays for this one.', duration_days: 1 + (x.b % 3),
            effects: [{ kind: 'maintenance_modifier', value: x.c % 3, resource: null, location_id: null, price: null }],
            quest: {
              title: `Crown bounty ${x.a}`, description: 'Paid from the royal purse.', requester_id: 1 + (x.a % 4),
              location_id: wild[x.b % wild.length], reward: 20 + (x.c % 200), deadline_days: 1 + (x.a % 5),
              minimum_strength: 0, minimum_reputation: 0, minimum_relationship: -100,
            },
            location: null,
          },
        });
      }
    }
  }
}
